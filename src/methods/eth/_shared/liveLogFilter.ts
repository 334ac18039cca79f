import { bytesToData } from '../../../codec/hex.js';
import type { LiveLogFilter } from '../../../live/eth/liveLogFilter.js';
import { InvalidParamsError } from '../../../rpc/errors.js';
import { type CompiledLogFilter, compileLogFilter, type LogFilterCriteria, MAX_FILTER_ALTERNATIVES, MAX_TOPIC_POSITIONS } from './logFilter.js';

/**
 * The live filter of a request's criteria (a `logs` subscription, an `eth_newFilter` filter): the
 * addresses and topics of eth_getLogs, and the block bounds geth applies to live logs
 * (`eth/filters/filter.go`, `filterLogs`): a numeric fromBlock or toBlock bounds them, a tag
 * (`latest`, …) does not. Checks the criteria as eth_getLogs does (same limits and texts) and
 * compiles them.
 */
export function liveLogFilter(criteria: LogFilterCriteria): LiveLogFilter {
  if (criteria.topics.length > MAX_TOPIC_POSITIONS) throw new InvalidParamsError('exceed max topics');
  if (criteria.addresses.length > MAX_FILTER_ALTERNATIVES || criteria.topics.some((t) => t.length > MAX_FILTER_ALTERNATIVES)) {
    throw new InvalidParamsError('exceed max addresses or topics per search position');
  }
  const from = criteria.fromBlock?.kind === 'number' ? criteria.fromBlock.number : undefined;
  const to = criteria.toBlock?.kind === 'number' ? criteria.toBlock.number : undefined;
  const compiled: CompiledLogFilter = compileLogFilter(criteria.addresses, criteria.topics);
  const hex = (list: readonly Uint8Array[]) => list.map(bytesToData).sort();
  const key = JSON.stringify([from?.toString() ?? null, to?.toString() ?? null, hex(criteria.addresses), criteria.topics.map(hex)]);
  return {
    key,
    mayMatchBlock: (header) =>
      (from === undefined || header.number >= from) && (to === undefined || header.number <= to) && compiled.mayMatchBloom(header.logsBloom),
    matches: (log) => compiled.matches(log),
  };
}
