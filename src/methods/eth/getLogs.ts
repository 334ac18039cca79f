import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { findLogs } from './_shared/findLogs.js';
import { LogFilterSchema } from './_shared/logFilter.js';

/**
 * `eth_getLogs(filter)`, under the caps of the `rpc` settings (`getLogsMaxResults`,
 * `getLogsMaxBlockRange`: the providers' 10,000 logs with their exact message, docs/methods.md#limits;
 * geth has no cap). Cases, checked in this order (geth
 * `eth/filters/api.go` GetLogs and `filter.go`, texts and codes as the execution-apis fixtures):
 *
 * 1. `blockHash` with `fromBlock`/`toBlock`: -32602 `invalid argument 0: cannot specify both…`
 *    (a decoding error, raised by the schema).
 * 2. More than 4 topic positions, or more than 1000 addresses or alternatives in one position:
 *    -32602, geth's texts.
 * 3. `blockHash`: that block only; unknown hash → -32000 `unknown block`.
 * 4. Range: bounds default to `latest`; tags resolve as for every other method (an imported chain
 *    has no pending block, so `pending`, `safe` and `finalized` are the head; `earliest` is 0).
 *    `from > to` → -32602 `invalid block range params`; `to` past the head → -32602
 *    `block range extends beyond current head block`; more than `getLogsMaxBlockRange` blocks →
 *    -32005 (the scan reads every header of the range, so its cost grows with the range even when
 *    nothing matches).
 * 5. Each block's header bloom is tested first, so blocks that cannot match are never decoded;
 *    more than `getLogsMaxResults` logs → -32005 `query returned more than N results`.
 * https://ethereum.github.io/execution-apis/api-documentation/
 */
export const getLogs = defineMethod({
  name: 'eth_getLogs',
  raises: HISTORY,
  cost: 'heavy', // scans a range of blocks (up to `getLogsMaxBlockRange`), off the EVM
  params: [LogFilterSchema],
  handler: (ctx: EthContext, [criteria], req) => findLogs(ctx, criteria, req),
});
