import { RawString } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { FILTER_LOGS } from '../raises.js';
import { filterOwner } from './_shared/filterOwner.js';

/**
 * `eth_getFilterChanges(id)`: what the filter collected since its last poll, then forgets it —
 * block hashes for a block filter, logs for a log filter (removed ones first after a
 * reorganisation). Polling renews the filter's deadline. An unknown id, an expired filter or
 * another key's filter is -32000 `filter not found` (geth `eth/filters/api.go`).
 */
export const getFilterChanges = defineMethod({
  name: 'eth_getFilterChanges',
  raises: FILTER_LOGS,
  params: [RawString],
  handler: (ctx: EthContext, [id], req) => ctx.events.filters.takeChanges(filterOwner(req), id),
});
