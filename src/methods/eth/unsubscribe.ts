import { RawString } from '../../codec/schemas.js';
import { NotificationsUnsupportedError, ServerError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';

/**
 * `eth_unsubscribe(id)`: ends one of this connection's subscriptions and answers true; an id
 * this connection does not hold is -32000 `subscription not found` (geth `rpc/handler.go`,
 * ErrSubscriptionNotFound). Over HTTP there are no subscriptions: -32601 `notifications not
 * supported`. Closing the socket ends all its subscriptions.
 */
export const unsubscribe = defineMethod({
  name: 'eth_unsubscribe',
  raises: NONE,
  params: [RawString],
  handler: (ctx: EthContext, [id], req) => {
    const channel = req?.session.notifications;
    if (channel === undefined) throw new NotificationsUnsupportedError();
    if (!ctx.events.subscriptions.unsubscribe(channel, id)) throw new ServerError('subscription not found');
    return true;
  },
});
