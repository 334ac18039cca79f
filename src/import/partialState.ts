import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { writeStorageBack } from '../execution/evm/storage.js';
import { FetchOnMiss, type FetchOnMissOptions } from '../state/fetchOnMiss.js';
import { createStateManager, openStateTrie } from '../state/stateManager.js';
import type { StateSource } from '../state/stateSource.js';
import type { TrieDB } from '../state/trieDb.js';

/**
 * Executing blocks in an archive that starts at block N (`chain/archiveStart.ts`): the datadir
 * holds none of the state before N, so the importer is given a provider (the follower's,
 * `follow/blockState.ts`) that fetches what a block will read before it runs — the block's
 * execution witness, or the proofs of the keys it touches — and answers what the run still
 * misses (`state/fetchOnMiss.ts`) at the parent's state. Every node let in hangs from the parent's
 * state root; the block's own roots are then computed and compared as for any block.
 */
export interface BlockStateProvider {
  /**
   * The trie database the block runs over, which holds what was fetched for it until its batch
   * is written (`holdFetched`): the importer executes over this one.
   */
  readonly trieDb: TrieDB;
  /** Fetches and stores what `block` will read of `parent`'s state, before it runs. */
  prepare(block: Block, parent: BlockHeader): Promise<void>;
  /** Proofs and code at the state of the parent last prepared: what the run still misses is fetched from here. */
  readonly source: StateSource;
  /** How fetch on miss searches for a collapsed branch's sibling (`follow.siblingSearchNibbles`), and who hears of it. */
  readonly fetchOptions: FetchOnMissOptions;
  /** The hash of a block below the archive's start (BLOCKHASH reaches 256 blocks back). */
  ancestorHash?(number: bigint): Promise<Uint8Array | undefined>;
}

/** The importer's state manager at `root`: over `trieDb`, and filling what it lacks through `provider` when given one. */
export async function importerStateManager(
  common: Common,
  trieDb: TrieDB,
  root: Uint8Array,
  trieNodeCacheEntries: number,
  provider: BlockStateProvider | undefined,
): Promise<{ sm: MerkleStateManager; fetcher?: FetchOnMiss }> {
  if (provider === undefined) {
    const sm = await createStateManager(common, trieDb, { trieNodeCacheEntries, root, caches: true });
    writeStorageBack(sm);
    return { sm };
  }
  const fetcher = new FetchOnMiss(provider.source, trieDb, trieDb, root, provider.fetchOptions);
  const trie = await openStateTrie(fetcher.db(), root, trieNodeCacheEntries);
  fetcher.attach(trie);
  const sm = new MerkleStateManager({ common, trie, caches: new Caches() });
  writeStorageBack(sm);
  fetcher.attachCode(sm);
  return { sm, fetcher };
}
