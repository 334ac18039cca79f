import { createMerkleProof } from '@ethereumjs/mpt';
import { type Account, bytesToBigInt, equalsBytes, KECCAK256_RLP } from '@ethereumjs/util';
import type { Config } from '../config/settings.js';
import type { Level } from '../db/database.js';
import { ReadOnlyTrieDB } from './nodeCache.js';
import { StateReadCache } from './readCache.js';
import { RemoteState } from './remoteState.js';
import { MissingTrieNodeError, type StateSource } from './stateSource.js';
import { TrieDB } from './trieDb.js';

/** One account's EIP-1186 proof, in domain types. */
export interface AccountProof {
  /** undefined when the account does not exist (the proof then proves absence). */
  account: Account | undefined;
  accountProof: Uint8Array[];
  storageProof: Array<{ value: bigint; proof: Uint8Array[] }>;
}

/** How an archive that starts at block N reads the state it does not hold (`chain/archiveStart.ts`). */
export interface PartialStateOptions {
  /** Where missing nodes and code are fetched (none: such reads fail, naming the missing node). */
  source?: StateSource;
}

/**
 * Reads accounts, storage, code and Merkle proofs from the archive state at any state root.
 * Values come through the network's {@link StateReadCache} (shared with eth_call), so a repeated
 * read at a root skips the trie walk; every trie read goes through one shared node cache. With
 * `partial` (an archive that starts at block N), what the datadir does not hold is fetched from
 * `partial.source` as it is read (`remoteState.ts`).
 */
export class StateReader {
  readonly db: ReadOnlyTrieDB;
  readonly reads: StateReadCache;
  /** `caches` sizes the node cache (`trieNodeEntries`) and the read cache (`stateReadEntries`). */
  constructor(level: Level, caches: Pick<Config['caches'], 'trieNodeEntries' | 'stateReadEntries'>, partial?: PartialStateOptions) {
    this.db = new ReadOnlyTrieDB(new TrieDB(level, partial !== undefined), caches.trieNodeEntries);
    const remote = partial === undefined ? undefined : new RemoteState(partial.source, this.db);
    this.db.remote = remote;
    this.reads = new StateReadCache(this.db, caches.stateReadEntries, remote);
  }

  /** The account at `address`, or undefined when absent. Shared: do not mutate it. */
  async account(stateRoot: Uint8Array, address: Uint8Array): Promise<Account | undefined> {
    return this.reads.account(stateRoot, address);
  }

  /**
   * The storage value of a 32-byte slot as minimal big-endian bytes (empty when zero, unset or the
   * account is absent). Shared with the cache: do not mutate it.
   */
  async storage(stateRoot: Uint8Array, address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const account = await this.account(stateRoot, address);
    return account ? this.reads.storage(account.storageRoot, slot, address, stateRoot) : new Uint8Array();
  }

  /** The code of `address` (empty when none). */
  async code(stateRoot: Uint8Array, address: Uint8Array): Promise<Uint8Array> {
    const account = await this.account(stateRoot, address);
    return account ? this.reads.code(account.codeHash, address, stateRoot) : new Uint8Array();
  }

  /**
   * EIP-1186 proof of an account and of each 32-byte slot (root first, leaf last). The values come
   * from the read cache; the proofs walk the same open tries. In a partial archive a proof that
   * meets a node it does not hold fetches the proof of the account and every slot at once, then
   * builds its own again, complete, against `stateRoot`.
   */
  async proof(stateRoot: Uint8Array, address: Uint8Array, slots: readonly Uint8Array[]): Promise<AccountProof> {
    try {
      return await this.localProof(stateRoot, address, slots);
    } catch (err) {
      const remote = this.reads.remote;
      if (!(err instanceof MissingTrieNodeError) || remote === undefined) throw err;
      return remote.retry('proof', err, () => this.localProof(stateRoot, address, slots), address, slots, stateRoot);
    }
  }

  private async localProof(stateRoot: Uint8Array, address: Uint8Array, slots: readonly Uint8Array[]): Promise<AccountProof> {
    const accountProof = await createMerkleProof(await this.reads.stateTrieAt(stateRoot), address);
    const account = await this.reads.account(stateRoot, address);
    const storageRoot = account !== undefined && !equalsBytes(account.storageRoot, KECCAK256_RLP) ? account.storageRoot : undefined;
    const storageProof = [];
    for (const slot of slots) {
      if (!storageRoot) {
        storageProof.push({ value: 0n, proof: [] });
        continue;
      }
      const proof = await createMerkleProof(this.reads.trieAt(storageRoot), slot);
      storageProof.push({ value: bytesToBigInt(await this.reads.storage(storageRoot, slot, address, stateRoot)), proof });
    }
    return { account, accountProof, storageProof };
  }
}
