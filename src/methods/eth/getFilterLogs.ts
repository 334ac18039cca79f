import { RawString } from '../../codec/schemas.js';
import { FilterNotFoundError } from '../../live/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { FILTER_LOGS } from '../raises.js';
import { filterOwner } from './_shared/filterOwner.js';
import { findLogs } from './_shared/findLogs.js';

/**
 * `eth_getFilterLogs(id)`: every log the log filter's criteria match now, as eth_getLogs would
 * answer them (same limits: `rpc.getLogsMaxResults`, `rpc.getLogsMaxBlockRange`); it renews the
 * deadline and leaves the changes for eth_getFilterChanges alone. A block filter, an unknown or
 * expired id, or another key's filter is -32000 `filter not found`, as geth.
 */
export const getFilterLogs = defineMethod({
  name: 'eth_getFilterLogs',
  raises: FILTER_LOGS,
  params: [RawString],
  handler: async (ctx: EthContext, [id], req) => {
    const filter = await ctx.events.filters.get(filterOwner(req), id);
    if (filter.kind !== 'logs') throw new FilterNotFoundError();
    return findLogs(ctx, filter.criteria, req);
  },
});
