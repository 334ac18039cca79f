import { z } from 'zod';
import { quoteValue } from '../../codec/quote.js';
import { defineMethod } from '../../rpc/method.js';
import { FeltError, feltToBytes } from '../../starknet/felt.js';
import { type BlockRef, type BlockTag, type EventFilter, getEvents as queryEvents } from '../../starknet/getEvents.js';
import { type RpcEmittedEvent, toRpcEvent } from './_shared/emittedEvent.js';
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

/** A FELT, decoded to its 32-byte value (leading zeros and case do not matter); the subscriptions use it too. */
export const Felt = z.string().transform((s, ctx) => {
  try {
    return feltToBytes(s);
  } catch (err) {
    if (!(err instanceof FeltError)) throw err;
    ctx.addIssue({ code: 'custom', message: err.message });
    return z.NEVER;
  }
});

/**
 * `address`: one FELT, or (spec v0.10.1+) a list of FELTs. Written as one schema, not a zod
 * union, so that a bad felt reports its own message rather than "Invalid input".
 */
export const Addresses = z.unknown().transform((v, ctx): Uint8Array[] => {
  const items = Array.isArray(v) ? v : [v];
  const out: Uint8Array[] = [];
  items.forEach((item, i) => {
    const r = Felt.safeParse(item);
    if (r.success) out.push(r.data);
    else ctx.addIssue({ code: 'custom', message: r.error.issues[0]?.message ?? 'invalid felt', path: Array.isArray(v) ? [i] : [] });
  });
  return out;
});

const BLOCK_TAGS: readonly BlockTag[] = ['latest', 'l1_accepted', 'pending', 'pre_confirmed'];

/**
 * BLOCK_ID: `{"block_hash": FELT}`, `{"block_number": n}` (a JSON integer ≥ 0) or a tag. We
 * accept the tags of every spec version: `latest` and `pending` (≤ 0.8), `l1_accepted` and
 * `pre_confirmed` (0.9+).
 */
const BlockId = z.unknown().transform((v, ctx): BlockRef => {
  const fail = (message: string) => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  if (typeof v === 'string') {
    return (BLOCK_TAGS as readonly string[]).includes(v)
      ? { tag: v as BlockTag }
      : fail(`unknown block tag ${quoteValue(v)}, want one of ${BLOCK_TAGS.join(', ')}`);
  }
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const fields = Object.keys(v);
    const o = v as Record<string, unknown>;
    if (fields.length === 1 && fields[0] === 'block_hash') {
      const r = Felt.safeParse(o.block_hash);
      return r.success ? { hash: r.data } : fail(`block_hash: ${r.error.issues[0]?.message}`);
    }
    if (fields.length === 1 && fields[0] === 'block_number') {
      const n = o.block_number;
      return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? { number: n } : fail('block_number must be an integer ≥ 0');
    }
  }
  return fail('invalid block id: want {"block_hash": felt}, {"block_number": integer} or a block tag');
});

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
