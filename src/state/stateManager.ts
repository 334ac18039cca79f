import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { ValueEncoding } from '@ethereumjs/util';
import type { TrieDB } from './trieDb.js';

/** Trie-node LRU entries kept per trie (each node is a few hundred bytes). */
export const TRIE_NODE_CACHE_ENTRIES = 50_000;

/** A secure (key-hashed) Merkle-Patricia state trie over our database, opened at `root`. */
export function createStateTrie(db: TrieDB, root?: Uint8Array): MerklePatriciaTrie {
  return new MerklePatriciaTrie({
    db,
    root,
    useKeyHashing: true,
    valueEncoding: ValueEncoding.Bytes,
    cacheSize: TRIE_NODE_CACHE_ENTRIES,
  });
}

/**
 * A state manager (accounts, storage, code) over the archive trie, at `root`. With `caches` it
 * keeps account/storage caches between blocks, which the importer wants; readers that jump between
 * roots leave them off.
 */
export function createStateManager(common: Common, db: TrieDB, root?: Uint8Array, caches = false): MerkleStateManager {
  return new MerkleStateManager({
    common,
    trie: createStateTrie(db, root),
    caches: caches ? new Caches() : undefined,
  });
}
