import type { BlockHeader } from '@ethereumjs/block';
import { equalsBytes } from '@ethereumjs/util';
import type { ChainStore, Head } from './store.js';

/**
 * What a move of the head changed: the blocks that left the canonical chain (newest first) and
 * the blocks that joined it (oldest first). A plain extension has no removed blocks; a
 * reorganisation has both, and `removed` ends at the block just above the common ancestor.
 */
export interface HeadChange {
  readonly removed: readonly BlockHeader[];
  readonly added: readonly BlockHeader[];
  /** True when more blocks joined than `maxBlocks`: `added` holds the newest ones only. */
  readonly truncated: boolean;
}

/**
 * Computes the change from head `from` to head `to` by walking both back by parent hash to their
 * common ancestor. Both branches stay readable by hash (a reorganisation drops only canonical
 * entries), so the old branch is read from the store as the new one is.
 *
 * The walk is bounded by `maxBlocks` blocks on each side: a node catching up thousands of blocks
 * at once announces the newest `maxBlocks` (and `truncated` says so), as a node that syncs does
 * not announce every block it imports. A removed branch longer than the bound (deeper than the
 * follower ever reorganises) is cut at the bound.
 */
export async function headChange(store: ChainStore, from: Head, to: Head, maxBlocks: number): Promise<HeadChange> {
  if (equalsBytes(from.hash, to.hash)) return { removed: [], added: [], truncated: false };
  const added: BlockHeader[] = [];
  const removed: BlockHeader[] = [];
  let newer = await store.headerByHash(to.hash);
  let older = await store.headerByHash(from.hash);
  if (newer === undefined) throw new Error('head block has no header');
  let truncated = false;
  // Bring the new side down to the old head's height, then step both sides together until they meet.
  while (newer !== undefined && newer.number > from.number) {
    if (added.length === maxBlocks) {
      truncated = true;
      break;
    }
    added.push(newer);
    newer = await parentOf(store, newer);
  }
  if (truncated) return { removed: [], added: added.reverse(), truncated };
  while (older !== undefined && newer !== undefined && older.number > newer.number) {
    if (removed.length === maxBlocks) break;
    removed.push(older);
    older = await parentOf(store, older);
  }
  while (older !== undefined && newer !== undefined && !equalsBytes(older.hash(), newer.hash())) {
    if (added.length === maxBlocks || removed.length === maxBlocks) break;
    removed.push(older);
    added.push(newer);
    older = await parentOf(store, older);
    newer = await parentOf(store, newer);
  }
  return { removed, added: added.reverse(), truncated: false };
}

/**
 * A header's parent: the block it names, none for the genesis. A block that names none (a zero
 * parentHash: Hardhat's reserved `hardhat_mine` blocks, followed under lenient header checks)
 * has the canonical block below it.
 */
async function parentOf(store: ChainStore, header: BlockHeader): Promise<BlockHeader | undefined> {
  if (header.number === 0n) return undefined;
  const named = await store.headerByHash(header.parentHash);
  if (named !== undefined || !header.parentHash.every((b) => b === 0)) return named;
  return store.headerByNumber(header.number - 1n);
}
