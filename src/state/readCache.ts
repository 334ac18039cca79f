import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { CODEHASH_PREFIX } from '@ethereumjs/statemanager';
import {
  type Account,
  type DB,
  KECCAK256_NULL,
  KECCAK256_RLP,
  ValueEncoding,
  bytesToUnprefixedHex,
  concatBytes,
  createAccountFromRLP,
  equalsBytes,
} from '@ethereumjs/util';
import { LruCache } from '../chain/lru.js';

/*
 * Reads of archived state are immutable facts: an account under a state root, a slot under a
 * storage root, code under its hash never change. One cache of them serves every reader of a
 * network — the state methods (eth_getBalance, eth_getStorageAt, …) and every eth_call at any
 * block — and misses walk the archive trie over the shared read-only node cache.
 */

/** Entries kept in the shared read cache (accounts, storage slots, code), across all blocks. */
export const STATE_READ_CACHE_ENTRIES = 100_000;
/** Tries kept open for cache misses (one per state root or storage root recently read). */
const OPEN_TRIES = 64;

const ABSENT = null;

/**
 * Immutable reads of archived state, cached for all calls. Accounts are keyed by state root and
 * address, storage by storage root and slot, code by code hash, so an entry never goes stale.
 */
export class StateReadCache {
  private readonly entries: LruCache<string, Account | Uint8Array | typeof ABSENT>;
  private readonly tries = new LruCache<string, MerklePatriciaTrie>(OPEN_TRIES);

  constructor(
    private readonly trieDb: DB<string, string | Uint8Array>,
    maxEntries = STATE_READ_CACHE_ENTRIES,
  ) {
    this.entries = new LruCache(maxEntries);
  }

  /** The account at `address` under state root `root`, or undefined. Do not mutate the result. */
  async account(root: Uint8Array, rootHex: string, address: Uint8Array, addressHex: string): Promise<Account | undefined> {
    const key = `a${rootHex}${addressHex}`;
    const hit = this.entries.get(key);
    if (hit !== undefined) return (hit as Account | null) ?? undefined;
    const raw = await this.trie(root, rootHex).get(address);
    const account = raw ? createAccountFromRLP(raw) : undefined;
    this.entries.set(key, account ?? ABSENT);
    return account;
  }

  /** A storage value (minimal big-endian bytes, empty for zero) in the storage trie `storageRoot`. */
  async storage(storageRoot: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    if (equalsBytes(storageRoot, KECCAK256_RLP)) return new Uint8Array();
    const rootHex = bytesToUnprefixedHex(storageRoot);
    const key = `s${rootHex}${bytesToUnprefixedHex(slot)}`;
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit as Uint8Array;
    const raw = await this.trie(storageRoot, rootHex).get(slot);
    const value = raw ? (RLP.decode(raw) as Uint8Array) : new Uint8Array();
    this.entries.set(key, value);
    return value;
  }

  /** Contract code by hash (empty for the empty-code hash). */
  async code(codeHash: Uint8Array): Promise<Uint8Array> {
    if (equalsBytes(codeHash, KECCAK256_NULL)) return new Uint8Array();
    const hashHex = bytesToUnprefixedHex(codeHash);
    const key = `c${hashHex}`;
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit as Uint8Array;
    const code = (await this.trieDb.get(bytesToUnprefixedHex(concatBytes(CODEHASH_PREFIX, codeHash)))) as Uint8Array | undefined;
    if (!code) throw new Error(`database corrupt: code 0x${hashHex} missing`);
    this.entries.set(key, code);
    return code;
  }

  /** The (read-only) trie under `root`, kept open while it is used. */
  trieAt(root: Uint8Array): MerklePatriciaTrie {
    return this.trie(root, bytesToUnprefixedHex(root));
  }

  private trie(root: Uint8Array, rootHex: string): MerklePatriciaTrie {
    let trie = this.tries.get(rootHex);
    if (!trie) {
      // Reads only: a trie has no per-read state beyond its root, so concurrent gets are safe.
      trie = new MerklePatriciaTrie({ db: this.trieDb, root, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes, cacheSize: 0 });
      this.tries.set(rootHex, trie);
    }
    return trie;
  }
}
