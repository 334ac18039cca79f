import { z } from 'zod';
import { RawString } from '../../codec/schemas.js';
import { InvalidParamsError, NotificationsUnsupportedError, RpcError } from '../../rpc/errors.js';
import { defineMethod, describeZodError } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { SUBSCRIPTION } from '../raises.js';
import { liveLogFilter } from './_shared/liveLogFilter.js';
import { type LogFilterCriteria, LogFilterSchema } from './_shared/logFilter.js';
import { pendingRefusal } from './_shared/pendingRefusal.js';

/** geth's answer to an unknown subscription name (`rpc/errors.go`, subscriptionNotFoundError). */
const UNKNOWN_SUBSCRIPTION_CODE = -32601;

/**
 * `eth_subscribe(kind, options?)` (geth `eth/filters/api.go`; envelope `rpc/subscription.go`),
 * WebSocket only: over HTTP it is -32601 `notifications not supported`, as geth answers.
 * - `newHeads`: each new canonical header (the new branch's headers after a reorganisation).
 * - `logs` with `{address, topics}` (as eth_getLogs; a numeric fromBlock/toBlock bounds the
 *   blocks): matching logs; after a reorganisation the dropped ones again with `removed: true`.
 * - `syncing`: accepted; this node never syncs from peers, so it never fires (as on a geth in sync).
 * - `newPendingTransactions`: the hashes of the followed node's pending transactions, relayed
 *   (this node has no pool of its own); -32004 saying so when it follows none, or one that offers
 *   none (a subscription that could never fire would leave the client waiting for nothing).
 *   `fullTx: true` is refused with -32602: only hashes are relayed.
 * - anything else: -32601 `no "x" subscription in eth namespace`, geth's text.
 * Returns the subscription id (16 random bytes as a quantity, as geth's); notifications follow on
 * the same socket. Subscriptions per connection are capped (`subscriptions.maxPerConnection`).
 */
export const subscribe = defineMethod({
  name: 'eth_subscribe',
  raises: SUBSCRIPTION,
  params: [RawString, z.unknown()],
  required: 1,
  handler: async (ctx: EthContext, [kind, options], req) => {
    const channel = req?.session.notifications;
    if (channel === undefined) throw new NotificationsUnsupportedError();
    const hub = ctx.events.subscriptions;
    switch (kind) {
      case 'newHeads':
        return hub.subscribe(channel, 'newHeads');
      case 'syncing':
        return hub.subscribe(channel, 'syncing');
      case 'logs':
        return hub.subscribe(channel, 'logs', liveLogFilter(logCriteria(options)));
      case 'newPendingTransactions':
        if (options !== undefined && options !== null && options !== false) {
          throw new InvalidParamsError('invalid argument 1: only transaction hashes are relayed (fullTx must be false or absent)');
        }
        try {
          return await hub.subscribePending(channel, ctx.events.pending);
        } catch (err) {
          throw pendingRefusal('newPendingTransactions', err) ?? err;
        }
      default:
        throw new RpcError(UNKNOWN_SUBSCRIPTION_CODE, `no ${JSON.stringify(kind)} subscription in eth namespace`);
    }
  },
});

function logCriteria(options: unknown): LogFilterCriteria {
  if (options === undefined || options === null) return { addresses: [], topics: [] };
  const parsed = LogFilterSchema.safeParse(options);
  if (!parsed.success) throw new InvalidParamsError(`invalid argument 1: ${describeZodError(parsed.error)}`);
  return parsed.data;
}
