import type { BatchDBOp, DB, EncodingOpts } from '@ethereumjs/util';
import { type CacheStats, LruCache } from '../chain/lru.js';
import type { FetchedStateStore, RemoteState } from './remoteState.js';
import { codeKey, type StateRoots, type TrieDB } from './trieDb.js';

/**
 * A read-only, LRU-cached view of the archive trie database for serving. Trie nodes are keyed by
 * their hash, so a cached entry never goes stale: every request at every block shares the cache.
 * Writes through the trie interface are refused (the server never changes state). The one
 * exception is what an archive that starts at block N fetches on a miss (`remoteState.ts`): nodes
 * and code checked against a trusted root, written under their own hashes ({@link storeNodes},
 * {@link storeCode}). It keeps `maxEntries` trie nodes and code (the `caches.trieNodeEntries`
 * setting; a node is ~100–600 bytes).
 */
export class ReadOnlyTrieDB implements DB<string, string | Uint8Array>, StateRoots, FetchedStateStore {
  private readonly cache: LruCache<string, Uint8Array>;
  /** An archive from block N: fetches what the datadir lacks (`remoteState.ts`; execution's tries too: `fetchOnMiss.ts`). */
  remote?: RemoteState;
  constructor(
    private readonly inner: TrieDB,
    maxEntries: number,
  ) {
    this.cache = new LruCache(maxEntries);
  }

  async get(key: string, _opts?: EncodingOpts): Promise<Uint8Array | undefined> {
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const value = await this.inner.get(key);
    if (value !== undefined) this.cache.set(key, value);
    return value;
  }

  /** The datadir's trie root for a header's state root ({@link TrieDB.stateTrieRoot}). */
  stateTrieRoot(stateRoot: Uint8Array): Promise<Uint8Array> {
    return this.inner.stateTrieRoot(stateRoot);
  }

  /** Stores fetched trie nodes (checked: `remoteState.ts`) and keeps them in the cache for the read that follows. */
  async storeNodes(nodes: ReadonlyMap<string, Uint8Array>): Promise<void> {
    await this.inner.storeNodes(nodes);
    for (const [key, node] of nodes) this.cache.set(key, node);
  }

  /** Stores fetched contract code (checked against its hash: `remoteState.ts`). */
  async storeCode(codeHash: Uint8Array, code: Uint8Array): Promise<void> {
    await this.inner.storeCode(codeHash, code);
    this.cache.set(codeKey(codeHash), code);
  }

  /** Hits, misses and entries of the node cache (for the metrics). */
  cacheStats(): CacheStats {
    return this.cache.stats();
  }

  async put(_key: string, _value: string | Uint8Array, _opts?: EncodingOpts): Promise<void> {
    throw new Error('state is read-only while serving');
  }
  async del(_key: string, _opts?: EncodingOpts): Promise<void> {
    throw new Error('state is read-only while serving');
  }
  async batch(_ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    throw new Error('state is read-only while serving');
  }
  shallowCopy(): DB<string, string | Uint8Array> {
    return this;
  }
  async open(): Promise<void> {}
}
