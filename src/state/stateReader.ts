import { MerklePatriciaTrie, createMerkleProof } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { CODEHASH_PREFIX } from '@ethereumjs/statemanager';
import {
  type Account,
  KECCAK256_NULL,
  KECCAK256_RLP,
  ValueEncoding,
  bytesToHex,
  concatBytes,
  createAccountFromRLP,
  equalsBytes,
} from '@ethereumjs/util';
import { LruCache } from '../chain/lru.js';
import type { Level } from '../db/database.js';
import { ReadOnlyTrieDB } from './nodeCache.js';
import { TrieDB } from './trieDb.js';

/** One account's EIP-1186 proof, in domain types. */
export interface AccountProof {
  /** undefined when the account does not exist (the proof then proves absence). */
  account: Account | undefined;
  accountProof: Uint8Array[];
  storageProof: Array<{ value: bigint; proof: Uint8Array[] }>;
}

/** State and storage trie objects kept for reuse (a few KiB each). */
const TRIE_OBJECTS_CACHED = 1024;
/** Account and storage reads remembered by (root, key): ~200 bytes an entry. */
export const READ_RESULTS_CACHED = 100_000;

/**
 * Reads accounts, storage, code and Merkle proofs from the archive state at any state root.
 * Every read goes through one shared node cache; opening a root costs nothing until a node is read.
 */
export class StateReader {
  readonly db: ReadOnlyTrieDB;
  // Building a trie object costs more than a cached lookup in it (debug setup, options): the tries of
  // recently read roots are kept. Reads never change a trie's root, so one object serves concurrent
  // requests.
  private readonly tries = new LruCache<string, MerklePatriciaTrie>(TRIE_OBJECTS_CACHED);
  // A trie under a given root never changes, so a value read at (root, key) is that value forever:
  // repeated reads (a wallet polling a balance, a dapp its contract's slots) skip the trie walk
  // and the node decoding. `null` records an absent account.
  private readonly accounts = new LruCache<string, Uint8Array | null>(READ_RESULTS_CACHED);
  private readonly slots = new LruCache<string, bigint>(READ_RESULTS_CACHED);
  constructor(level: Level) {
    this.db = new ReadOnlyTrieDB(new TrieDB(level));
  }

  private trie(root: Uint8Array): MerklePatriciaTrie {
    const key = bytesToHex(root);
    let trie = this.tries.get(key);
    if (!trie) {
      trie = new MerklePatriciaTrie({ db: this.db, root, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes, cacheSize: 0 });
      this.tries.set(key, trie);
    }
    return trie;
  }

  /** The account at `address`, or undefined when absent. */
  async account(stateRoot: Uint8Array, address: Uint8Array): Promise<Account | undefined> {
    const key = bytesToHex(stateRoot) + bytesToHex(address).slice(2);
    let raw = this.accounts.get(key);
    if (raw === undefined) {
      raw = await this.trie(stateRoot).get(address);
      this.accounts.set(key, raw);
    }
    return raw ? createAccountFromRLP(raw) : undefined;
  }

  /** The storage value of a 32-byte slot (0 when unset or the account is absent). */
  async storage(stateRoot: Uint8Array, address: Uint8Array, slot: Uint8Array): Promise<bigint> {
    const account = await this.account(stateRoot, address);
    if (!account || equalsBytes(account.storageRoot, KECCAK256_RLP)) return 0n;
    const key = bytesToHex(account.storageRoot) + bytesToHex(slot).slice(2);
    let value = this.slots.get(key);
    if (value === undefined) {
      value = decodeStorageValue(await this.trie(account.storageRoot).get(slot));
      this.slots.set(key, value);
    }
    return value;
  }

  /** The code of `address` (empty when none). */
  async code(stateRoot: Uint8Array, address: Uint8Array): Promise<Uint8Array> {
    const account = await this.account(stateRoot, address);
    if (!account || equalsBytes(account.codeHash, KECCAK256_NULL)) return new Uint8Array();
    const code = await this.db.get(bytesToHex(concatBytes(CODEHASH_PREFIX, account.codeHash)).slice(2));
    if (!code) throw new Error(`database corrupt: code ${bytesToHex(account.codeHash)} missing`);
    return code;
  }

  /** EIP-1186 proof of an account and of each 32-byte slot (root first, leaf last). */
  async proof(stateRoot: Uint8Array, address: Uint8Array, slots: readonly Uint8Array[]): Promise<AccountProof> {
    const trie = this.trie(stateRoot);
    const accountProof = await createMerkleProof(trie, address);
    const raw = await trie.get(address);
    const account = raw ? createAccountFromRLP(raw) : undefined;
    const hasStorage = account !== undefined && !equalsBytes(account.storageRoot, KECCAK256_RLP);
    const storageTrie = hasStorage ? this.trie(account.storageRoot) : undefined;
    const storageProof = [];
    for (const slot of slots) {
      if (!storageTrie) {
        storageProof.push({ value: 0n, proof: [] });
        continue;
      }
      const proof = await createMerkleProof(storageTrie, slot);
      storageProof.push({ value: decodeStorageValue(await storageTrie.get(slot)), proof });
    }
    return { account, accountProof, storageProof };
  }
}

/** Storage leaves hold RLP(value without leading zeros). */
function decodeStorageValue(raw: Uint8Array | null): bigint {
  if (!raw) return 0n;
  const bytes = RLP.decode(raw) as Uint8Array;
  return bytes.length === 0 ? 0n : BigInt(bytesToHex(bytes));
}

