import { BlockNotFoundError } from './errors.js';
import { bytesToHex64 } from './felt.js';
import type { StarknetStore, StoredBlock } from './store.js';

/**
 * Block ids as the Starknet methods take them (the spec's BLOCK_ID), resolved against the store.
 * Tags of every spec version are taken: `latest` and `pending` (≤ 0.8), `l1_accepted` and
 * `pre_confirmed` (0.9+). This node builds no block, so `pending`/`pre_confirmed` name an empty
 * block after `latest` (what pathfinder answers when it has no pending data).
 */

/** The block tags. */
export type BlockTag = 'latest' | 'l1_accepted' | 'pending' | 'pre_confirmed';

/** A decoded block id: a number, a 32-byte hash or a tag. */
export type BlockRef = { number: number } | { hash: Uint8Array } | { tag: BlockTag };

/** A block id resolved: a stored block, or the empty pending block built on `parent` (the latest). */
export type ResolvedBlock = { pending: false; block: StoredBlock } | { pending: true; parent: StoredBlock };

/** Whether `ref` names the pending (pre-confirmed) block. */
export function isPendingRef(ref: BlockRef): boolean {
  return 'tag' in ref && (ref.tag === 'pending' || ref.tag === 'pre_confirmed');
}

/**
 * The number of the stored block `ref` names (not a pending tag): `latest` the highest stored
 * block, `l1_accepted` the highest accepted on L1; a block that is not stored (a number in a
 * gap, an unknown hash, a tag with no block yet) is {@link BlockNotFoundError}.
 */
export async function storedBlockNumber(store: StarknetStore, ref: BlockRef): Promise<number> {
  let n: number | undefined;
  if ('number' in ref) n = (await store.block(ref.number)) ? ref.number : undefined;
  else if ('hash' in ref) n = await store.blockNumberByHash(ref.hash);
  else if (ref.tag === 'latest') n = await store.latestNumber();
  else if (ref.tag === 'l1_accepted') n = await store.l1AcceptedNumber();
  if (n === undefined) throw new BlockNotFoundError(describeBlockRef(ref));
  return n;
}

/** The block `ref` names; a pending tag gives the pending block on the latest ({@link BlockNotFoundError} with no block). */
export async function resolveBlockRef(store: StarknetStore, ref: BlockRef): Promise<ResolvedBlock> {
  if (isPendingRef(ref)) {
    const latest = await store.latestNumber();
    const parent = latest === undefined ? undefined : await store.block(latest);
    if (parent === undefined) throw new BlockNotFoundError(describeBlockRef(ref));
    return { pending: true, parent };
  }
  const block = await store.block(await storedBlockNumber(store, ref));
  if (block === undefined) throw new BlockNotFoundError(describeBlockRef(ref));
  return { pending: false, block };
}

/**
 * The block whose state `ref` reads: the block it names, or for a pending tag the latest (the
 * empty pending block changes nothing).
 */
export async function stateBlockNumber(store: StarknetStore, ref: BlockRef): Promise<number> {
  const resolved = await resolveBlockRef(store, ref);
  return resolved.pending ? resolved.parent.number : resolved.block.number;
}

/** A block reference as the domain error names it: `number 7`, `hash 0x…` (64 digits), `tag latest`. */
export function describeBlockRef(ref: BlockRef): string {
  if ('number' in ref) return `number ${ref.number}`;
  if ('hash' in ref) return `hash 0x${bytesToHex64(ref.hash)}`;
  return `tag ${ref.tag}`;
}
