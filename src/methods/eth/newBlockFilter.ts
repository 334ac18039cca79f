import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { FILTER } from '../raises.js';
import { filterOwner } from './_shared/filterOwner.js';

/**
 * `eth_newBlockFilter()`: a filter whose changes (eth_getFilterChanges) are the hashes of the
 * blocks that joined the canonical chain since the last poll, oldest first. Owned by the API key
 * that made it; removed after `subscriptions.filterTimeoutMs` without a poll. geth
 * `eth/filters/api.go` NewBlockFilter.
 */
export const newBlockFilter = defineMethod({
  name: 'eth_newBlockFilter',
  raises: FILTER,
  params: [],
  handler: (ctx: EthContext, _args, req) => ctx.events.filters.installBlocks(filterOwner(req)),
});
