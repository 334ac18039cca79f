import { LruCache } from '../../../chain/lru.js';
import { keepJson } from '../../../rpc/keptJson.js';
import type { RpcBlock } from './formatBlock.js';
import type { RpcLog } from './formatLog.js';
import type { RpcReceipt } from './formatReceipt.js';

/**
 * Answers' pieces of recent blocks kept as they were rendered, by block hash and position: logs
 * as eth_getLogs renders them (pollers ask for the same recent blocks' logs again and again, a
 * dapp's page, a bot, a feed watching a contract's last blocks) and receipts by transaction index
 * (a wallet polls its transaction's receipt; an indexer reads a block's). Rendering a log — nine
 * hex fields — costs more than finding it, and a receipt with its logs more than reading it.
 *
 * A block's entry holds only the pieces asked for, rendered on first use; it is weighed again as
 * it grows, within the setting's bytes (0: off). A block's hash names its logs and receipts for
 * ever, so a kept piece is never wrong after a reorganisation: the new branch's blocks have other
 * hashes. The objects are shared between answers: they are serialized, never changed, and their
 * JSON text is kept with them (`rpc/keptJson.ts`), which their weight counts.
 */
export class RenderedByBlock<T extends object> {
  private readonly blocks: LruCache<string, { items: T[]; bytes: number }> | undefined;

  constructor(
    maxBytes: number,
    /** An item's estimated bytes: the rendered object and its JSON text. */
    private readonly weigh: (item: T) => number,
  ) {
    this.blocks = maxBytes > 0 ? new LruCache(Number.MAX_SAFE_INTEGER, { maxWeight: maxBytes, weigh: (entry) => entry.bytes }) : undefined;
  }

  /** The item at `position` of the block `blockKey` (its hash as `hexKey`), rendered by `render` once. */
  item(blockKey: string, position: number, render: () => T): T {
    if (this.blocks === undefined) return render();
    let entry = this.blocks.get(blockKey);
    const kept = entry?.items[position];
    if (kept !== undefined) return kept;
    const made = keepJson(render());
    if (entry === undefined) entry = { items: [], bytes: ENTRY_BYTES };
    entry.items[position] = made;
    entry.bytes += this.weigh(made);
    this.blocks.set(blockKey, entry); // weighed again
    return made;
  }
}

/** Estimated bytes of a block's entry besides its items: the key, the array, the map's slots. */
const ENTRY_BYTES = 200;

/** A rendered log's strings (one byte a character) and the objects around them; blockHash, transactionHash and blockTimestamp are shared by the block's or transaction's logs. */
function logObjectBytes(log: RpcLog): number {
  let bytes = 160 + log.address.length + log.data.length + log.blockNumber.length + log.transactionIndex.length + log.logIndex.length;
  for (const topic of log.topics) bytes += 16 + topic.length;
  return bytes;
}

/** A log's JSON text besides its own strings: the names, quotes and punctuation, and the shared hashes written out (~230 bytes). */
const LOG_TEXT_BYTES = 230;

/** Estimated bytes of a kept log: the object and its text. */
export function logBytes(log: RpcLog): number {
  const own = logObjectBytes(log);
  return own + own + LOG_TEXT_BYTES;
}

/** Estimated bytes of a kept receipt: its fields (the bloom's 514 characters the most) and logs, twice (object and text). */
export function receiptBytes(receipt: RpcReceipt): number {
  let own = 1_200;
  for (const log of receipt.logs) own += logObjectBytes(log) + LOG_TEXT_BYTES;
  return own + own;
}

/**
 * Estimated bytes of a kept block, twice (object and text): its header's fields (the bloom's 514
 * characters the most), and its transactions — a hash each, or in full about twice their encoded
 * size in hex characters besides ~700 bytes of fields.
 */
export function blockBytes(block: RpcBlock): number {
  let own = 2_000 + 80 * block.uncles.length + 200 * (block.withdrawals?.length ?? 0);
  for (const tx of block.transactions ?? []) own += typeof tx === 'string' ? 80 : 700 + tx.input.length + (tx.accessList?.length ?? 0) * 200;
  return own + own;
}
