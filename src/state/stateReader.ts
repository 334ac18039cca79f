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

/**
 * Reads accounts, storage, code and Merkle proofs from the archive state at any state root.
 * Every read goes through one shared node cache; opening a root costs nothing until a node is read.
 */
export class StateReader {
  readonly db: ReadOnlyTrieDB;
  constructor(level: Level) {
    this.db = new ReadOnlyTrieDB(new TrieDB(level));
  }

  private trie(root: Uint8Array): MerklePatriciaTrie {
    return new MerklePatriciaTrie({ db: this.db, root, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes, cacheSize: 0 });
  }

  /** The account at `address`, or undefined when absent. */
  async account(stateRoot: Uint8Array, address: Uint8Array): Promise<Account | undefined> {
    const raw = await this.trie(stateRoot).get(address);
    return raw ? createAccountFromRLP(raw) : undefined;
  }

  /** The storage value of a 32-byte slot (0 when unset or the account is absent). */
  async storage(stateRoot: Uint8Array, address: Uint8Array, slot: Uint8Array): Promise<bigint> {
    const account = await this.account(stateRoot, address);
    if (!account || equalsBytes(account.storageRoot, KECCAK256_RLP)) return 0n;
    return decodeStorageValue(await this.trie(account.storageRoot).get(slot));
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

