import { LruCache } from '../../../chain/lru.js';
import type { RpcLog } from './formatLog.js';

/**
 * Logs of recent blocks as eth_getLogs renders them, kept by block hash and position: pollers ask
 * for the same recent blocks' logs again and again (a dapp's page, a bot, a feed watching a
 * contract's last blocks), and rendering a log — nine hex fields — costs more than finding it.
 * A block's entry holds only the logs some filter asked for, rendered on first use; it is weighed
 * again as it grows, within `caches.renderedLogsBytes` (0: off). A block's hash names its logs
 * for ever, so a kept log is never wrong after a reorganisation: the new branch's blocks have other
 * hashes. The objects are shared between answers: they are serialized, never changed.
 */
export class RenderedLogs {
  private readonly blocks: LruCache<string, { logs: RpcLog[]; bytes: number }> | undefined;

  constructor(maxBytes: number) {
    this.blocks = maxBytes > 0 ? new LruCache(Number.MAX_SAFE_INTEGER, { maxWeight: maxBytes, weigh: (entry) => entry.bytes }) : undefined;
  }

  /** The log at `logIndex` of the block `blockKey` (its hash as {@link hexKey}), rendered by `render` once. */
  log(blockKey: string, logIndex: number, render: () => RpcLog): RpcLog {
    if (this.blocks === undefined) return render();
    let entry = this.blocks.get(blockKey);
    const kept = entry?.logs[logIndex];
    if (kept !== undefined) return kept;
    const made = render();
    if (entry === undefined) entry = { logs: [], bytes: ENTRY_BYTES };
    entry.logs[logIndex] = made;
    entry.bytes += logBytes(made);
    this.blocks.set(blockKey, entry); // weighed again
    return made;
  }
}

/** Estimated bytes of a block's entry besides its logs: the key, the array, the map's slots. */
const ENTRY_BYTES = 200;

/** Estimated bytes of a rendered log: its strings (one byte a character) and the objects around them. */
function logBytes(log: RpcLog): number {
  let bytes = 160 + log.address.length + log.data.length + log.blockNumber.length + log.transactionIndex.length + log.logIndex.length;
  for (const topic of log.topics) bytes += 16 + topic.length;
  // blockHash, transactionHash and blockTimestamp are shared by the block's or transaction's logs.
  return bytes;
}
