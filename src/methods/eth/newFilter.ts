import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { FILTER_LOGS } from '../raises.js';
import { filterOwner } from './_shared/filterOwner.js';
import { liveLogFilter } from './_shared/liveLogFilter.js';
import { LogFilterSchema } from './_shared/logFilter.js';

/**
 * `eth_newFilter(filter)`: a log filter polled with eth_getFilterChanges (matching logs of new
 * blocks; after a reorganisation the dropped ones with `removed: true`) and read whole with
 * eth_getFilterLogs. The filter object is eth_getLogs's, with its limits and texts; a numeric
 * fromBlock/toBlock bounds the blocks it collects, as geth. Owned by the API key that made it;
 * removed after `subscriptions.filterTimeoutMs` without a poll. geth `eth/filters/api.go` NewFilter.
 */
export const newFilter = defineMethod({
  name: 'eth_newFilter',
  raises: FILTER_LOGS,
  params: [LogFilterSchema],
  handler: (ctx: EthContext, [criteria], req) => ctx.events.filters.installLogs(filterOwner(req), criteria, liveLogFilter(criteria)),
});
