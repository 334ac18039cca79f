import { bytesToData } from '../../../codec/hex.js';
import type { ChainEvents, ChainEventsFormat } from '../../../live/eth/chainEvents.js';
import { formatHeader } from './formatBlock.js';
import { formatLog, type RpcLog } from './formatLog.js';
import { liveLogFilter } from './liveLogFilter.js';
import { type FilterBlock, type LogFilterCriteria, LogFilterSchema } from './logFilter.js';

/**
 * The wire side of an Ethereum network's subscriptions and filters, given to the live layer
 * (`live/eth/`), which holds their lifecycle and renders each header and log once through it:
 * - headers as `newHeads` sends them (geth's header JSON), logs as eth_getLogs returns them;
 * - geth's notification envelope (`rpc/subscription.go`), one per header, log or hash:
 *   `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":ID,"result":…}}`;
 * - log criteria kept in Redis (shared filters) in eth_newFilter's own JSON form, decoded again
 *   by {@link LogFilterSchema}, and matched by {@link liveLogFilter}.
 */
export const ETH_LIVE_FORMAT: ChainEventsFormat<LogFilterCriteria, RpcLog> = {
  render: { header: formatHeader, log: formatLog },
  frame: (id, result) => `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":${result}}}`,
  criteria: { encode: encodeCriteria, decode: (stored) => LogFilterSchema.parse(stored), live: liveLogFilter },
};

/** The chain events of an Ethereum network, with eth_newFilter's criteria and wire logs. */
export type EthChainEvents = ChainEvents<LogFilterCriteria, RpcLog>;

/** The criteria in eth_newFilter's JSON form, to store. */
function encodeCriteria(c: LogFilterCriteria): unknown {
  const block = (b: FilterBlock | undefined) => (b === undefined ? undefined : b.kind === 'tag' ? b.tag : `0x${b.number.toString(16)}`);
  return {
    blockHash: c.blockHash && bytesToData(c.blockHash),
    fromBlock: block(c.fromBlock),
    toBlock: block(c.toBlock),
    address: c.addresses.map(bytesToData),
    topics: c.topics.map((alts) => (alts.length === 0 ? null : alts.map(bytesToData))),
  };
}
