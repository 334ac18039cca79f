import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { CODEHASH_PREFIX } from '@ethereumjs/statemanager';
import {
  type Account,
  bytesToHex,
  bytesToUnprefixedHex,
  concatBytes,
  createAccountFromRLP,
  type DB,
  equalsBytes,
  KECCAK256_NULL,
  KECCAK256_RLP,
  ValueEncoding,
} from '@ethereumjs/util';
import { type CacheStats, LruCache } from '../chain/lru.js';
import { keccak256 } from '../codec/keccak.js';
import type { RemoteState } from './remoteState.js';
import { openStateTrie } from './stateManager.js';
import { MissingCodeError, MissingTrieNodeError } from './stateSource.js';

/*
 * Reads of archived state are immutable facts: an account under a state root, a slot under a
 * storage root, code under its hash never change. One cache of them serves every reader of a
 * network — the state methods (eth_getBalance, eth_getStorageAt, …) and every eth_call at any
 * block — and misses walk the archive trie over the shared read-only node cache.
 */

/** Tries kept open for cache misses (one per state root or storage root recently read). */
const OPEN_TRIES = 64;

const ABSENT = null;

/**
 * Immutable reads of archived state, cached for all calls. Accounts are keyed by state root and
 * address, storage by storage root and slot, code by code hash, so an entry never goes stale.
 * It keeps `maxEntries` of them across all blocks (the `caches.stateReadEntries` setting).
 *
 * In an archive that starts at block N (`remote` given), a read that meets a node or code the
 * datadir does not hold fetches it (`remoteState.ts`) and reads again: storage and code reads
 * then need the account's address and the state root they are read at, which say what to ask for.
 * A datadir that holds its whole chain never takes that path.
 */
export class StateReadCache {
  private readonly entries: LruCache<string, Account | Uint8Array | typeof ABSENT>;
  private readonly tries = new LruCache<string, MerklePatriciaTrie>(OPEN_TRIES);

  constructor(
    private readonly trieDb: DB<string, string | Uint8Array>,
    maxEntries: number,
    readonly remote?: RemoteState,
  ) {
    this.entries = new LruCache(maxEntries);
  }

  /** The account at `address` under state root `root`, or undefined. Do not mutate the result. */
  async account(root: Uint8Array, address: Uint8Array): Promise<Account | undefined> {
    const key = cacheKey(KEY_ACCOUNT, root, address);
    const hit = this.entries.get(key);
    if (hit !== undefined) return (hit as Account | null) ?? undefined;
    const trie = await this.stateTrieAt(root);
    let raw: Uint8Array | null;
    try {
      raw = await trie.get(address);
    } catch (err) {
      if (!(err instanceof MissingTrieNodeError) || this.remote === undefined) throw err;
      raw = await this.remote.retry('account', err, () => trie.get(address), address, [], root);
    }
    const account = raw ? createAccountFromRLP(raw) : undefined;
    this.entries.set(key, account ?? ABSENT);
    return account;
  }

  /**
   * A storage value (minimal big-endian bytes, empty for zero) in the storage trie `storageRoot`,
   * the storage of `address` in the state `stateRoot` (what a partial archive asks for on a miss).
   */
  async storage(storageRoot: Uint8Array, slot: Uint8Array, address?: Uint8Array, stateRoot?: Uint8Array): Promise<Uint8Array> {
    if (equalsBytes(storageRoot, KECCAK256_RLP)) return new Uint8Array();
    const key = cacheKey(KEY_SLOT, storageRoot, slot);
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit as Uint8Array;
    const trie = this.trieAt(storageRoot);
    let raw: Uint8Array | null;
    try {
      raw = await trie.get(slot);
    } catch (err) {
      if (!(err instanceof MissingTrieNodeError) || this.remote === undefined) throw err;
      if (address === undefined || stateRoot === undefined) throw err;
      raw = await this.remote.retry('storage', err, () => trie.get(slot), address, [slot], stateRoot);
    }
    const value = raw ? (RLP.decode(raw) as Uint8Array) : new Uint8Array();
    this.entries.set(key, value);
    return value;
  }

  /** Contract code by hash (empty for the empty-code hash): the code of `address` in the state `stateRoot`. */
  async code(codeHash: Uint8Array, address?: Uint8Array, stateRoot?: Uint8Array): Promise<Uint8Array> {
    if (equalsBytes(codeHash, KECCAK256_NULL)) return new Uint8Array();
    const key = cacheKey(KEY_CODE, codeHash);
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit as Uint8Array;
    let code: Uint8Array | undefined;
    try {
      code = (await this.trieDb.get(bytesToUnprefixedHex(concatBytes(CODEHASH_PREFIX, codeHash)))) as Uint8Array | undefined;
    } catch (err) {
      if (!(err instanceof MissingCodeError) || this.remote === undefined) throw err;
      code = await this.remote.code(codeHash, address, stateRoot);
    }
    if (!code) throw new Error(`database corrupt: code ${bytesToHex(codeHash)} missing`);
    this.entries.set(key, code);
    return code;
  }

  /** Hits, misses and entries of the read cache (for the metrics). */
  cacheStats(): CacheStats {
    return this.entries.stats();
  }

  /** The (read-only) storage trie under `root`, kept open while it is used. */
  trieAt(root: Uint8Array): MerklePatriciaTrie {
    const key = cacheKey(KEY_TRIE, root);
    let trie = this.tries.get(key);
    if (!trie) {
      // Reads only: a trie has no per-read state beyond its root, so concurrent gets are safe.
      trie = new MerklePatriciaTrie({
        db: this.trieDb,
        root,
        useKeyHashing: true,
        useKeyHashingFunction: keccak256,
        valueEncoding: ValueEncoding.Bytes,
        cacheSize: 0,
      });
      this.tries.set(key, trie);
    }
    return trie;
  }

  /**
   * The (read-only) state trie of the state a header names `stateRoot`, kept open while it is
   * used: opened by {@link openStateTrie}, which applies the datadir's state-root alias.
   */
  async stateTrieAt(stateRoot: Uint8Array): Promise<MerklePatriciaTrie> {
    const key = cacheKey(KEY_STATE_TRIE, stateRoot);
    const open = this.tries.get(key);
    if (open) return open;
    const trie = await openStateTrie(this.trieDb, stateRoot, 0);
    this.tries.set(key, trie);
    return trie;
  }
}

const KEY_ACCOUNT = 0x61; // 'a'
const KEY_SLOT = 0x73; // 's'
const KEY_CODE = 0x63; // 'c'
const KEY_TRIE = 0x74; // 't'
const KEY_STATE_TRIE = 0x54; // 'T'
const keyScratch = Buffer.alloc(1 + 32 + 32);

/**
 * A cache key: a tag byte and the raw bytes (each at most 32), read as a latin1 string. Built in
 * one native call, so it is a flat string: a key concatenated from hex pieces is a rope that every
 * Map lookup must first copy flat, which cost ~0.5 µs a lookup.
 */
function cacheKey(tag: number, a: Uint8Array, b?: Uint8Array): string {
  keyScratch[0] = tag;
  keyScratch.set(a, 1);
  let end = 1 + a.length;
  if (b !== undefined) {
    keyScratch.set(b, end);
    end += b.length;
  }
  return keyScratch.toString('latin1', 0, end);
}
