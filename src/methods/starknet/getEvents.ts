import { z } from 'zod';
import { defineMethod } from '../../rpc/method.js';
import { type EventFilter, getEvents as queryEvents } from '../../starknet/getEvents.js';
import { STARKNET_EVENTS } from '../raises.js';
import { type RpcEmittedEvent, toRpcEvent } from './_shared/emittedEvent.js';
import { Addresses, BlockId, Felt } from './_shared/schemas.js';
import type { StarknetContext } from './context.js';

export type { RpcEmittedEvent };

/**
 * `starknet_getEvents`: a page of the events matching a filter.
 * Spec: starkware-libs/starknet-specs `api/starknet_api_openrpc.json` (v0.10: `address` may be a
 * list; results carry `transaction_index` and `event_index`). Params: `{"filter": {…}}` or
 * `[{…}]`, the filter being EVENT_FILTER ∪ RESULT_PAGE_REQUEST. Errors: -32602 for a filter that
 * does not decode (unknown field, bad felt, `chunk_size` missing or < 1, …); 31, 33, 24, 34
 * from the store-side query (`starknet/getEvents.ts`), which owns limits and pagination and
 * throws domain errors that `methods/errors.ts` maps to these codes.
 */

/** The filter object. Unknown fields are -32602; `null` is accepted for omitted optional fields. */
const Filter = z.strictObject({
  from_block: BlockId.nullish(),
  to_block: BlockId.nullish(),
  address: Addresses.nullish(),
  keys: z.array(z.array(Felt)).nullish(),
  chunk_size: z
    .number({ error: 'chunk_size is required and must be an integer ≥ 1' })
    .refine((n) => Number.isInteger(n) && n >= 1, 'chunk_size must be an integer ≥ 1'),
  continuation_token: z.string().nullish(),
});

export type GetEventsParams = z.output<typeof Filter>;

/** EVENTS_CHUNK; `continuation_token` present exactly when more events match. */
export interface GetEventsResult {
  events: RpcEmittedEvent[];
  continuation_token?: string;
}

/** `starknet_getEvents` (see the module comment above for params and errors). */
export const getEvents = defineMethod({
  name: 'starknet_getEvents',
  raises: STARKNET_EVENTS,
  params: [Filter],
  names: ['filter'],
  handler: async (ctx: StarknetContext, [f]): Promise<GetEventsResult> => {
    const filter: EventFilter = {
      fromBlock: f.from_block ?? undefined,
      toBlock: f.to_block ?? undefined,
      addresses: f.address ?? [],
      keys: f.keys ?? [],
      chunkSize: f.chunk_size,
      continuationToken: f.continuation_token ?? undefined,
    };
    const page = await queryEvents(ctx.store, filter, { limits: ctx.eventLimits });
    const events = page.events.map(toRpcEvent);
    return page.continuationToken === undefined ? { events } : { events, continuation_token: page.continuationToken };
  },
});
