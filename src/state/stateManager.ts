import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { ValueEncoding } from '@ethereumjs/util';
import type { TrieDB } from './trieDb.js';

/**
 * A secure (key-hashed) Merkle-Patricia state trie over our database, opened at `root`, keeping
 * up to `cacheEntries` trie nodes in its own LRU (the `import.trieNodeCacheEntries` setting).
 */
export function createStateTrie(db: TrieDB, cacheEntries: number, root?: Uint8Array): MerklePatriciaTrie {
  return new MerklePatriciaTrie({
    db,
    root,
    useKeyHashing: true,
    valueEncoding: ValueEncoding.Bytes,
    cacheSize: cacheEntries,
  });
}

/** How {@link createStateManager} builds its trie and whether it keeps account/storage caches. */
export interface StateManagerOptions {
  /** Trie nodes the trie keeps in memory. */
  trieNodeCacheEntries: number;
  root?: Uint8Array;
  /**
   * Keep account/storage caches between blocks, which the importer wants; readers that jump
   * between roots leave them off.
   */
  caches?: boolean;
}

/** A state manager (accounts, storage, code) over the archive trie, at `opts.root`. */
export function createStateManager(common: Common, db: TrieDB, opts: StateManagerOptions): MerkleStateManager {
  return new MerkleStateManager({
    common,
    trie: createStateTrie(db, opts.trieNodeCacheEntries, opts.root),
    caches: opts.caches ? new Caches() : undefined,
  });
}
