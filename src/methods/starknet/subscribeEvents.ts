import { z } from 'zod';
import { NotificationsUnsupportedError, StarknetTooManyKeysInFilterError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import { eventConstraints } from '../../starknet/eventMatcher.js';
import { STARKNET_SUBSCRIPTION } from '../raises.js';
import { eventsCatchUp } from './_shared/catchUp.js';
import { Addresses, Felt } from './_shared/schemas.js';
import { SubscriptionBlockId, startBlock } from './_shared/startBlock.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_subscribeEvents(from_address?, keys?, block_id?)` (Starknet WebSocket spec v0.8,
 * `api/starknet_ws_api.json`), WebSocket only. Answers the subscription id, then sends
 * `starknet_subscriptionEvents` with each matching event as EMITTED_EVENT (the same object
 * starknet_getEvents returns, so with `transaction_index` and `event_index`): first the events
 * of the stored blocks from `block_id` (default `latest`: the head's events) to the head, then
 * those of each new block; on a reorganisation, `starknet_subscriptionReorg` with the removed
 * range before the new branch's events. The filter is starknet_getEvents': `from_address` one
 * address (or, as spec v0.10 allows, a list), `keys` one OR-list per position, empty = any.
 * Errors: 34 TOO_MANY_KEYS_IN_FILTER (more positions than `starknet.maxKeyPositions`), 24, 68
 * and -32005 as starknet_subscribeNewHeads, -32601 `notifications not supported` over HTTP.
 */
export const subscribeEvents = defineMethod({
  name: 'starknet_subscribeEvents',
  raises: STARKNET_SUBSCRIPTION,
  params: [Addresses, z.array(z.array(Felt)), SubscriptionBlockId],
  required: 0,
  names: ['from_address', 'keys', 'block_id'],
  handler: async (ctx: StarknetContext, [addresses, keys, blockId], req): Promise<string> => {
    const channel = req?.session.notifications;
    if (channel === undefined) throw new NotificationsUnsupportedError();
    if ((keys?.length ?? 0) > ctx.eventLimits.maxKeyPositions) throw new StarknetTooManyKeysInFilterError();
    const constraints = eventConstraints(addresses ?? [], keys ?? []);
    const from = await startBlock(ctx, blockId);
    return ctx.events.subscriptions.subscribe(channel, 'events', from, eventsCatchUp(ctx, from, constraints), constraints);
  },
});
