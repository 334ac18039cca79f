import type { BatchDBOp, DB, EncodingOpts } from '@ethereumjs/util';
import { hexDigitsToBytes } from '../codec/hex.js';
import type { BatchOp, Level } from '../db/database.js';
import { PREFIX, prefixed } from '../db/keys.js';

/**
 * The @ethereumjs/mpt database interface over our LevelDB, for the state and storage tries and
 * contract code (all keyed by hash, so one keyspace holds every block's nodes: an archive).
 *
 * Writes never reach LevelDB directly: they collect in a pending overlay that the importer drains
 * into the block's atomic batch ({@link TrieDB.drain}) once the block has verified, or drops
 * ({@link TrieDB.discard}) when it has not. Nodes are never deleted (no pruning), so the state
 * root of every imported block stays readable.
 */
export class TrieDB implements DB<string, string | Uint8Array> {
  private pending = new Map<string, Uint8Array>();
  constructor(private readonly level: Level) {}

  async get(key: string, _opts?: EncodingOpts): Promise<Uint8Array | undefined> {
    const hit = this.pending.get(key);
    if (hit !== undefined) return hit;
    const value = await this.level.get(prefixed(PREFIX.state, hexDigitsToBytes(key)));
    return value ?? undefined;
  }

  async put(key: string, value: string | Uint8Array, _opts?: EncodingOpts): Promise<void> {
    this.pending.set(key, toBytes(value));
  }

  /** Ignored: an archive keeps every node (the trie never prunes, so this is not called). */
  async del(_key: string, _opts?: EncodingOpts): Promise<void> {}

  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of ops) {
      if (op.type === 'put') this.pending.set(op.key, toBytes(op.value));
    }
  }

  /** The same store: tries shallow-copied from one another share one overlay. */
  shallowCopy(): DB<string, string | Uint8Array> {
    return this;
  }

  async open(): Promise<void> {}

  /** Moves the pending writes into `ops` (as LevelDB puts) and clears the overlay. */
  drain(ops: BatchOp[]): number {
    for (const [key, value] of this.pending) {
      ops.push({ type: 'put', key: prefixed(PREFIX.state, hexDigitsToBytes(key)), value });
    }
    const n = this.pending.size;
    this.pending = new Map();
    return n;
  }

  /** Drops the pending writes (a block that failed verification). */
  discard(): void {
    this.pending = new Map();
  }
}

function toBytes(value: string | Uint8Array): Uint8Array {
  return typeof value === 'string' ? hexDigitsToBytes(value) : value;
}
