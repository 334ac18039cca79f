import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { type DB, ValueEncoding } from '@ethereumjs/util';
import { keccak256 } from '../codec/keccak.js';
import { stateTrieRoot, type TrieDB } from './trieDb.js';

/**
 * A secure (key-hashed) Merkle-Patricia state trie over `db`, opened at the state a header names
 * `stateRoot` (none: an empty trie), keeping up to `cacheEntries` trie nodes in its own LRU (0:
 * none). Every state trie opened at a header's root is opened here: the root goes through the
 * datadir's alias ({@link stateTrieRoot}), so block 0 of a chain whose genesis header misnames its
 * state (anvil) opens on the state it holds.
 */
export async function openStateTrie(db: DB<string, string | Uint8Array>, stateRoot: Uint8Array | undefined, cacheEntries: number): Promise<MerklePatriciaTrie> {
  return new MerklePatriciaTrie({
    db,
    root: stateRoot === undefined ? undefined : await stateTrieRoot(db, stateRoot),
    useKeyHashing: true,
    useKeyHashingFunction: keccak256,
    valueEncoding: ValueEncoding.Bytes,
    cacheSize: cacheEntries,
  });
}

/** How {@link createStateManager} builds its trie and whether it keeps account/storage caches. */
export interface StateManagerOptions {
  /** Trie nodes the trie keeps in memory (the `import.trieNodeCacheEntries` setting). */
  trieNodeCacheEntries: number;
  /** The state root a header names (none: an empty state). */
  root?: Uint8Array;
  /**
   * Keep account/storage caches between blocks, which the importer wants; readers that jump
   * between roots leave them off.
   */
  caches?: boolean;
}

/** A state manager (accounts, storage, code) over the archive trie, at the state `opts.root` names. */
export async function createStateManager(common: Common, db: TrieDB, opts: StateManagerOptions): Promise<MerkleStateManager> {
  return new MerkleStateManager({
    common,
    trie: await openStateTrie(db, opts.root, opts.trieNodeCacheEntries),
    caches: opts.caches ? new Caches() : undefined,
  });
}
