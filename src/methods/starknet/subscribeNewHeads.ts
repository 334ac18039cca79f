import { NotificationsUnsupportedError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import { STARKNET_SUBSCRIPTION } from '../raises.js';
import { headsCatchUp } from './_shared/catchUp.js';
import { SubscriptionBlockId, startBlock } from './_shared/startBlock.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_subscribeNewHeads(block_id?)` (Starknet WebSocket spec v0.8, `api/starknet_ws_api.json`),
 * WebSocket only. Answers the subscription id (a decimal string), then sends
 * `starknet_subscriptionNewHeads` with each block's BLOCK_HEADER: first the stored blocks from
 * `block_id` (default `latest`: the head itself) to the head, then each new block as it is
 * followed; on a reorganisation, `starknet_subscriptionReorg` with the removed range before the
 * new branch's headers. Errors: 24 BLOCK_NOT_FOUND, 68 TOO_MANY_BLOCKS_BACK (more than
 * `subscriptions.maxBlocksBack` blocks to replay), -32005 past `subscriptions.maxPerConnection`,
 * and over HTTP -32601 `notifications not supported` (pathfinder answers -32601 there too: it
 * serves subscription methods on WebSocket only).
 */
export const subscribeNewHeads = defineMethod({
  name: 'starknet_subscribeNewHeads',
  raises: STARKNET_SUBSCRIPTION,
  params: [SubscriptionBlockId],
  required: 0,
  names: ['block_id'],
  handler: async (ctx: StarknetContext, [blockId], req): Promise<string> => {
    const channel = req?.session.notifications;
    if (channel === undefined) throw new NotificationsUnsupportedError();
    const from = await startBlock(ctx, blockId);
    return ctx.events.subscriptions.subscribe(channel, 'newHeads', from, headsCatchUp(ctx, from));
  },
});
