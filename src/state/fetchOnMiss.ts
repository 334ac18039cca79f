import type { StateManagerInterface } from '@ethereumjs/common';
import type { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { type Address, type BatchDBOp, bytesToHex, bytesToUnprefixedHex, type DB, type EncodingOpts, equalsBytes, KECCAK256_RLP } from '@ethereumjs/util';
import { LruCache } from '../chain/lru.js';
import { keccak256 } from '../codec/keccak.js';
import { type FetchedStateStore, provenNodes } from './remoteState.js';
import { MissingCodeError, MissingTrieNodeError, RemoteStateError, type StateSource } from './stateSource.js';
import { type StateRoots, stateTrieRoot } from './trieDb.js';
import { childPrefix, type KeyWalk, keyUnderPrefix, walkKey } from './trieWalk.js';

/**
 * Fetch on miss inside execution, for an archive that starts at block N: a VM (the importer's, a
 * trace replay's, eth_simulateV1's, the witness generator's) runs on a state trie of which the
 * datadir may not hold every node. @ethereumjs reads a node by its hash alone, deep inside a trie
 * operation, and may lose an error thrown there (its storage writes run in a promise executor that
 * never settles then); so the node is fetched where it is read, in the trie database, and handed
 * back as if it had been there. What says which key to fetch it by is the trie operation under
 * way: the state trie and every storage trie copied from it are wrapped (their public
 * `get`/`put`/`del`), so the database knows the key (an address, or a slot and, from the storage
 * root, its account) and fetches its proof (`StateSource.proveAccount`) at the state the VM
 * started from, checked as part A checks every proof (`remoteState.ts` provenNodes: each node
 * hangs from that state's root).
 *
 * A node is missing in a trie under execution only where that state held it: untouched since the
 * archive's start (else executing a block since would have written it), at the same nibble path
 * (a trie's updates keep every other node where it is). So the proof of the key being read or
 * written brings it, with one exception: deleting a key can leave a branch with one child, which
 * @ethereumjs then reads to merge it upwards — a sibling, off the key's path. That one is found on
 * the key's path in the state the VM started from (the branch naming it as a child gives its
 * nibble path); a key whose keccak256 starts with those nibbles is searched for (16^n hashes for
 * n nibbles, bounded: `maxSearchNibbles`), and the proof of that key, present or absent, walks
 * through the sibling. Beyond the bound the run fails with a {@link SiblingSearchError}.
 *
 * Code is fetched by address: the state manager's `getCode` is wrapped, the code checked against
 * the code hash the account names. When a fetch fails, the run fails: {@link FetchOnMiss.failed}
 * rejects, for the caller to race the run against ({@link raceFetchOnMiss}), and the read throws —
 * except inside a storage trie's write, which MerkleStateManager runs in a promise executor that
 * would turn the error into an unhandled rejection (ending the thread): that read never settles.
 */

/** A collapsed branch's sibling lies deeper than the search for a key under it goes. */
export class SiblingSearchError extends RemoteStateError {
  override readonly name = 'SiblingSearchError';
  constructor(message: string) {
    super('unavailable', message);
  }
}

export interface FetchOnMissOptions {
  /** How deep a collapsed branch's sibling may lie for a key under it to be searched for (nibbles; 16^n keccak256 each). */
  maxSearchNibbles: number;
  /** Told of each fetch from the source (the read statistics). */
  onFetch?: (kind: 'proof' | 'code') => void;
  /** Told of each sibling fetched through a searched key: how deep it lay, the hashes and time the search took. */
  onSibling?: (search: { nibbles: number; hashes: number; ms: number }) => void;
}

/** What fetch on miss did since it was made. */
export interface FetchOnMissStats {
  /** Proofs fetched for the key whose path lacked a node. */
  paths: number;
  /** Siblings of collapsed branches fetched through a searched key. */
  siblings: number;
  /** Codes fetched. */
  codes: number;
  /** keccak256 computed by sibling searches, and the time they took. */
  searchHashes: number;
  searchMs: number;
}

/** A trie operation under way: which trie, and the key (address or slot, not hashed). */
interface TrieOp {
  scope: 'account' | 'storage';
  write: boolean;
  key: Uint8Array;
  trie: MerklePatriciaTrie;
}

/** The default of `follow.siblingSearchNibbles`, and the bound of the readers' searches: 16^6 keccak256 expected at most. */
export const DEFAULT_SEARCH_NIBBLES = 6;

/** Storage roots remembered with their account (a storage trie is named by its root only). */
const STORAGE_OWNERS = 250_000;

const fetchers = new WeakMap<object, FetchOnMiss>();

/** Fetch on miss for tries of the state `stateRoot` over `base` (the archive's trie database), from `source` into `store`. */
export class FetchOnMiss {
  /** Rejects with the first failure (for a caller to race a run against). */
  readonly failed: Promise<never>;
  readonly stats: FetchOnMissStats = { paths: 0, siblings: 0, codes: 0, searchHashes: 0, searchMs: 0 };
  private reject!: (err: Error) => void;
  private readonly ops: TrieOp[] = [];
  private readonly storageOwners = new LruCache<string, Uint8Array>(STORAGE_OWNERS);
  private readonly trieOwners = new WeakMap<MerklePatriciaTrie, Uint8Array>();

  constructor(
    private readonly source: StateSource | undefined,
    private readonly store: FetchedStateStore,
    private readonly base: DB<string, string | Uint8Array>,
    /** The state the VM started from (a header's state root): where missing nodes are fetched from. */
    public stateRoot: Uint8Array,
    private readonly opts: FetchOnMissOptions,
  ) {
    this.failed = new Promise<never>((_, reject) => {
      this.reject = reject;
    });
    this.failed.catch(() => undefined);
  }

  /** The database to open the state trie over: `base`, filling what it lacks. */
  db(): DB<string, string | Uint8Array> & StateRoots {
    return new FetchingDb(this.base, this);
  }

  /** Wraps the state trie (and the storage tries copied from it), so that a miss knows its key. */
  attach(trie: MerklePatriciaTrie, scope: 'account' | 'storage' = 'account'): void {
    const get = trie.get.bind(trie);
    const put = trie.put.bind(trie);
    const del = trie.del.bind(trie);
    const copy = trie.shallowCopy.bind(trie);
    trie.get = async (key, throwIfMissing) => {
      const value = await this.keyed(scope, false, key, trie, () => get(key, throwIfMissing));
      if (scope === 'account') this.noteAccount(key, value);
      return value;
    };
    trie.put = (key, value, skipKeyTransform) => {
      if (scope === 'account') this.noteAccount(key, value);
      return this.keyed(scope, true, key, trie, () => put(key, value, skipKeyTransform));
    };
    trie.del = (key, skipKeyTransform) => this.keyed(scope, true, key, trie, () => del(key, skipKeyTransform));
    trie.shallowCopy = (includeCheckpoints, opts) => {
      const storageTrie = copy(includeCheckpoints, opts);
      this.attach(storageTrie, 'storage');
      return storageTrie;
    };
  }

  /** Makes {@link raceFetchOnMiss} of `sm` race a run against this fetch's failure. */
  register(sm: StateManagerInterface): void {
    fetchers.set(sm, this);
  }

  /** Wraps `sm.getCode` (MerkleStateManager's, through which every code read goes) to fetch code the datadir lacks. */
  attachCode(sm: StateManagerInterface): void {
    this.register(sm);
    const getCode = sm.getCode.bind(sm);
    sm.getCode = async (address: Address) => {
      try {
        return await getCode(address);
      } catch (err) {
        if (!(err instanceof MissingCodeError)) throw err;
        await this.fetchCode(err.codeHash, address.bytes);
        return getCode(address);
      }
    };
  }

  /** Fills the node `hash` that a read of this state missed (a {@link FetchingDb} calls it). */
  async resolve(hash: Uint8Array): Promise<void> {
    try {
      await this.fill(hash);
    } catch (err) {
      this.reject(err as Error);
      throw err;
    }
  }

  private async fill(hash: Uint8Array): Promise<void> {
    const op = this.ops.at(-1);
    const what = `missing trie node ${bytesToHex(hash)}`;
    if (op === undefined) throw new RemoteStateError('unavailable', `${what}: read outside a keyed trie operation, so no key names it`);
    const address = op.scope === 'account' ? op.key : this.ownerOf(op.trie);
    if (address === undefined) throw new RemoteStateError('unavailable', `${what}: in a storage trie whose account is not known`);
    const slots = op.scope === 'storage' ? [op.key] : [];
    let walk = await this.walkFromState(op.scope, address, op.key);
    if (walk.missing !== undefined) {
      await this.fetch(address, slots).catch((err: unknown) => {
        throw naming(
          err,
          `${what}, on the path of ${op.scope === 'account' ? bytesToHex(address) : `${bytesToHex(address)}'s slot ${bytesToHex(op.key)}`} at state ${bytesToHex(this.stateRoot)}`,
        );
      });
      this.stats.paths++;
      if (await this.held(hash)) return;
      walk = await this.walkFromState(op.scope, address, op.key);
      if (walk.missing !== undefined) throw new RemoteStateError('unavailable', `${what}: the upstream's proof did not complete the path of the key read`);
    }
    if (await this.held(hash)) return;
    // Not on the key's path: the sibling a deletion that collapses a branch merges upwards.
    const prefix = childPrefix(walk, hash);
    const where = op.scope === 'account' ? 'the state trie' : `the storage of ${bytesToHex(address)}`;
    if (prefix === undefined) {
      throw new RemoteStateError(
        'unavailable',
        `${what}: neither on the path of the key read in ${where} at state ${bytesToHex(this.stateRoot)} nor a child of it`,
      );
    }
    const search = await keyUnderPrefix(prefix, op.scope === 'account' ? 20 : 32, this.opts.maxSearchNibbles);
    this.stats.searchHashes += search.hashes;
    this.stats.searchMs += search.ms;
    if (search.key === undefined) {
      throw new SiblingSearchError(
        `a deletion collapses a branch of ${where} whose other child ${bytesToHex(hash)} is not held and lies ${prefix.length} nibbles deep, beyond the search for a key under it (follow.siblingSearchNibbles ${this.opts.maxSearchNibbles}): follow an upstream that serves debug_executionWitness (geth, reth, erigon)`,
      );
    }
    await this.fetch(op.scope === 'account' ? search.key : address, op.scope === 'account' ? [] : [search.key]).catch((err: unknown) => {
      throw naming(err, `${what}, the sibling a deletion in ${where} merges, at state ${bytesToHex(this.stateRoot)}`);
    });
    if (!(await this.held(hash)))
      throw new RemoteStateError('unavailable', `${what}: the proof of a key under it at ${prefix.length} nibbles does not reach it`);
    this.stats.siblings++;
    this.opts.onSibling?.({ nibbles: prefix.length, hashes: search.hashes, ms: search.ms });
  }

  /** The path of `key` in the trie of `scope` in the state this VM started from (a storage trie's root read there too). */
  private async walkFromState(scope: TrieOp['scope'], address: Uint8Array, key: Uint8Array): Promise<KeyWalk> {
    const lookup = (h: Uint8Array) => this.held(h);
    const stateTrie = await stateTrieRoot(this.base, this.stateRoot);
    const account = await walkKey(lookup, stateTrie, keccak256(address));
    if (scope === 'account' || account.missing !== undefined) return account;
    if (!account.value) return { steps: [], value: null };
    const storageRoot = (RLP.decode(account.value) as Uint8Array[])[2];
    return walkKey(lookup, storageRoot, keccak256(key));
  }

  /** Fetches the proof of `address` (and `slots`) at this state and stores the nodes that hang from its root. */
  private async fetch(address: Uint8Array, slots: Uint8Array[]): Promise<void> {
    if (this.source === undefined) {
      throw new RemoteStateError(
        'noSource',
        `state of ${bytesToHex(address)} is not held locally (an archive from block N) and no node is followed to fetch it from`,
      );
    }
    const proof = await this.source.proveAccount(address, slots, this.stateRoot);
    this.opts.onFetch?.('proof');
    await this.store.storeNodes(provenNodes(proof));
  }

  private async fetchCode(codeHash: Uint8Array, address: Uint8Array): Promise<void> {
    if (this.source === undefined)
      throw new RemoteStateError('noSource', `code ${bytesToHex(codeHash)} is not held locally and no node is followed to fetch it from`);
    const code = await this.source.code(address, this.stateRoot);
    this.opts.onFetch?.('code');
    if (!equalsBytes(keccak256(code), codeHash)) {
      throw new RemoteStateError('invalid', `the upstream's code of ${bytesToHex(address)} does not hash to its code hash ${bytesToHex(codeHash)}: not stored`);
    }
    await this.store.storeCode(codeHash, code);
    this.stats.codes++;
  }

  /**
   * Whether the operation under way writes a storage trie: MerkleStateManager runs those in a
   * promise executor that loses what is thrown in it (an unhandled rejection, which ends the thread).
   */
  inStorageWrite(): boolean {
    const op = this.ops.at(-1);
    return op !== undefined && op.scope === 'storage' && op.write;
  }

  /** The node `hash` when the datadir holds it. */
  async held(hash: Uint8Array): Promise<Uint8Array | undefined> {
    try {
      return (await this.base.get(bytesToUnprefixedHex(hash))) as Uint8Array | undefined;
    } catch (err) {
      if (err instanceof MissingTrieNodeError) return undefined;
      throw err;
    }
  }

  private async keyed<T>(scope: TrieOp['scope'], write: boolean, key: Uint8Array, trie: MerklePatriciaTrie, run: () => Promise<T>): Promise<T> {
    if (scope === 'storage' && !this.trieOwners.has(trie)) {
      const owner = this.storageOwners.get(bytesToUnprefixedHex(trie.root()));
      if (owner !== undefined) this.trieOwners.set(trie, owner);
    }
    const op: TrieOp = { scope, write, key, trie };
    this.ops.push(op);
    try {
      const result = await run();
      // A storage write gives the trie a root this block made: a storage trie opened later at it
      // (MerkleStateManager writes storage through to its trie, and opens its tries again after a
      // revert, at the root its cached account names) belongs to the same account.
      if (scope === 'storage' && write) {
        const owner = this.trieOwners.get(trie);
        if (owner !== undefined) this.storageOwners.set(bytesToUnprefixedHex(trie.root()), owner);
      }
      return result;
    } finally {
      const i = this.ops.lastIndexOf(op);
      if (i >= 0) this.ops.splice(i, 1);
    }
  }

  private ownerOf(trie: MerklePatriciaTrie): Uint8Array | undefined {
    return this.trieOwners.get(trie) ?? this.storageOwners.get(bytesToUnprefixedHex(trie.root()));
  }

  /** Remembers the account of a storage root, from an account read from or written to the state trie. */
  private noteAccount(address: Uint8Array, rlp: Uint8Array | null): void {
    if (rlp === null || rlp.length === 0) return;
    const fields = RLP.decode(rlp) as Uint8Array[];
    const storageRoot = fields[2];
    if (storageRoot instanceof Uint8Array && storageRoot.length === 32 && !equalsBytes(storageRoot, KECCAK256_RLP)) {
      this.storageOwners.set(bytesToUnprefixedHex(storageRoot), address.slice());
    }
  }
}

/** A source's failure to give a node, with the node named in front (the kind kept). */
function naming(err: unknown, what: string): unknown {
  if (!(err instanceof RemoteStateError) || err instanceof SiblingSearchError) return err;
  return new RemoteStateError(err.kind, `${what}: ${err.message}`);
}

/** `run` raced against the failure of the fetch on miss of `sm` (when it has one): a run whose fetch failed may never settle. */
export function raceFetchOnMiss<T>(sm: StateManagerInterface, run: Promise<T>): Promise<T> {
  const fetcher = fetchers.get(sm);
  return fetcher === undefined ? run : Promise.race([run, fetcher.failed]);
}

/** A trie database whose misses {@link FetchOnMiss} fills: writes go to `base` (the importer's pending block). */
class FetchingDb implements DB<string, string | Uint8Array>, StateRoots {
  constructor(
    private readonly base: DB<string, string | Uint8Array>,
    private readonly fetcher: FetchOnMiss,
  ) {}

  stateTrieRoot(stateRoot: Uint8Array): Promise<Uint8Array> {
    return stateTrieRoot(this.base, stateRoot);
  }

  async get(key: string, opts?: EncodingOpts): Promise<string | Uint8Array | undefined> {
    try {
      return await this.base.get(key, opts);
    } catch (err) {
      if (!(err instanceof MissingTrieNodeError)) throw err;
      try {
        await this.fetcher.resolve(err.hash);
      } catch (failure) {
        // A storage write would lose the error and never settle: it never settles here either, and the run's race sees `failed`.
        if (this.fetcher.inStorageWrite()) return new Promise<never>(() => {});
        throw failure;
      }
      // Read again through the base (which may record what it hands out: the witness generator).
      return this.base.get(key, opts);
    }
  }

  put(key: string, value: string | Uint8Array, opts?: EncodingOpts): Promise<void> {
    return this.base.put(key, value, opts);
  }
  del(key: string, opts?: EncodingOpts): Promise<void> {
    return this.base.del(key, opts);
  }
  batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    return this.base.batch(ops);
  }
  shallowCopy(): DB<string, string | Uint8Array> {
    return this;
  }
  async open(): Promise<void> {}
}
