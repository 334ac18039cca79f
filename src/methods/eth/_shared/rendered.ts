import { LruCache } from '../../../chain/lru.js';
import { keepJson } from '../../../codec/keptJson.js';

/**
 * Answers' pieces of recent blocks kept as they were rendered, by block hash and position: logs
 * as eth_getLogs renders them (pollers ask for the same recent blocks' logs again and again, a
 * dapp's page, a bot, a feed watching a contract's last blocks), receipts by transaction index
 * (a wallet polls its transaction's receipt; an indexer reads a block's) and blocks by form (0:
 * with transaction hashes, 1: in full; every poller asks for the head). Rendering a log — nine hex
 * fields — costs more than finding it, and a receipt or a block more than reading it.
 *
 * A block's entry holds only the pieces asked for, rendered on first use; it is weighed again as
 * it grows, within the setting's bytes (0: off). A block's hash names its logs, receipts and
 * renderings for ever, so a kept piece is never wrong after a reorganisation: the new branch's blocks have other
 * hashes. The objects are shared between answers: they are serialized, never changed, and their
 * JSON text is kept with them (`codec/keptJson.ts`), which their weight counts (each kind's
 * estimate is beside its renderer: `logBytes`, `receiptBytes`, `blockBytes`).
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
