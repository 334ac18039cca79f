import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { FILTER } from '../raises.js';
import { filterOwner } from './_shared/filterOwner.js';
import { pendingRefusal } from './_shared/pendingRefusal.js';

/**
 * `eth_newPendingTransactionFilter()`: a filter whose changes are the hashes of the followed
 * node's pending transactions, relayed (this node has no pool of its own). When it follows none,
 * or one that offers none, -32004 says so: a filter that never collects anything would leave the
 * client polling for nothing. Owned by the API key that made it, and expires, as every filter.
 */
export const newPendingTransactionFilter = defineMethod({
  name: 'eth_newPendingTransactionFilter',
  raises: FILTER,
  params: [],
  handler: async (ctx: EthContext, _args, req) => {
    try {
      return await ctx.events.filters.installPending(filterOwner(req), ctx.events.pending);
    } catch (err) {
      throw pendingRefusal('eth_newPendingTransactionFilter', err) ?? err;
    }
  },
});
