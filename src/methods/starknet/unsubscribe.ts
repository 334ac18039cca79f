import { z } from 'zod';
import { NotificationsUnsupportedError, StarknetInvalidSubscriptionIdError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import { NONE } from '../raises.js';
import type { StarknetContext } from './context.js';

/**
 * A SUBSCRIPTION_ID: the spec's string, or the integer its `starknet_unsubscribe` declares
 * (the two v0.8 schemas disagree; pathfinder takes the string).
 */
const SubscriptionId = z.union([z.string(), z.number().int().nonnegative().transform(String)], { error: 'subscription_id must be a string' });

/**
 * `starknet_unsubscribe(subscription_id)` (Starknet WebSocket spec v0.8): ends one of this
 * connection's subscriptions and answers true; an id the connection does not hold is
 * 66 INVALID_SUBSCRIPTION_ID. Closing the socket ends all its subscriptions. Over HTTP, -32601
 * `notifications not supported`.
 */
export const unsubscribe = defineMethod({
  name: 'starknet_unsubscribe',
  raises: NONE,
  params: [SubscriptionId],
  names: ['subscription_id'],
  handler: (ctx: StarknetContext, [id], req): true => {
    const channel = req?.session.notifications;
    if (channel === undefined) throw new NotificationsUnsupportedError();
    if (!ctx.events.subscriptions.unsubscribe(channel, id)) throw new StarknetInvalidSubscriptionIdError();
    return true;
  },
});
