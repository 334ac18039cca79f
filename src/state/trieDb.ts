import { CODEHASH_PREFIX } from '@ethereumjs/statemanager';
import { type BatchDBOp, bytesToUnprefixedHex, concatBytes, type DB, type EncodingOpts, equalsBytes, KECCAK256_RLP } from '@ethereumjs/util';
import { LruCache } from '../chain/lru.js';
import { hexDigitsToBytes } from '../codec/hex.js';
import type { BatchOp, Level } from '../db/database.js';
import { META, PREFIX, prefixed } from '../db/keys.js';
import { MissingCodeError, MissingTrieNodeError } from './stateSource.js';

/** A header's state root and the trie root that holds that state, when they differ (META.stateRootAlias). */
export interface StateRootAlias {
  headerRoot: Uint8Array;
  trieRoot: Uint8Array;
}

/** A trie database that knows where its datadir keeps the state a header names (TrieDB and what wraps it). */
export interface StateRoots {
  stateTrieRoot(stateRoot: Uint8Array): Promise<Uint8Array>;
}

/**
 * The @ethereumjs/mpt database interface over our LevelDB, for the state and storage tries and
 * contract code (all keyed by hash, so one keyspace holds every block's nodes: an archive).
 *
 * Writes never reach LevelDB directly: they collect in a pending overlay that the importer drains
 * into the block's atomic batch ({@link TrieDB.drain}) once the block has verified, or drops
 * ({@link TrieDB.discard}) when it has not. Nodes are never deleted (no pruning), so the state
 * root of every imported block stays readable.
 *
 * In an archive that starts at block N (`partial`: it holds no state up front) a read of a key it
 * does not hold throws — {@link MissingTrieNodeError} for a node, {@link MissingCodeError} for
 * code — rather than answering nothing, which @ethereumjs would take for an empty subtree; the
 * readers that know which key they were reading fetch it (`remoteState.ts`).
 *
 * The follower of such an archive (`holdFetched`) keeps what it fetched for a block — nodes and
 * code checked against the parent's state root — in memory too, read from there while the block
 * runs, and written with the block's batch ({@link drain}): one write a block, and what a block
 * reads is never read back from LevelDB. A block that fails keeps them for the next try
 * ({@link discard} drops only the block's own writes): they hang from a trusted root whatever the
 * block does. It also keeps the last `recentNodes` nodes written or fetched (a node never changes under its
 * hash): the checks of which keys the next blocks need fetched walk the newest state's paths,
 * whose nodes the block before just wrote, and read them from there rather than from LevelDB.
 */
export class TrieDB implements DB<string, string | Uint8Array>, StateRoots {
  private pending = new Map<string, Uint8Array>();
  private fetched = new Map<string, Uint8Array>();
  private alias: Promise<StateRootAlias | undefined> | undefined;
  constructor(
    private readonly level: Level,
    private readonly partial = false,
    private readonly holdFetched = false,
    recentNodes = 0,
  ) {
    this.recent = recentNodes > 0 ? new LruCache(recentNodes) : undefined;
  }
  private readonly recent: LruCache<string, Uint8Array> | undefined;

  /**
   * The root of the trie that holds the state a header names `stateRoot`: the same root, except
   * in a datadir whose genesis header names another (META.stateRootAlias: anvil gives its block 0
   * the empty trie's root whatever its allocation, foundry issue 7366). Every opener of a state
   * trie at a header's root asks here, through {@link stateTrieRoot}. The alias is read once.
   */
  async stateTrieRoot(stateRoot: Uint8Array): Promise<Uint8Array> {
    this.alias ??= readStateRootAlias(this.level);
    const alias = await this.alias;
    return alias !== undefined && equalsBytes(stateRoot, alias.headerRoot) ? alias.trieRoot : stateRoot;
  }

  async get(key: string, _opts?: EncodingOpts): Promise<Uint8Array | undefined> {
    const hit = this.pending.get(key) ?? this.fetched.get(key) ?? this.recent?.get(key);
    if (hit !== undefined) return hit;
    const value = await this.level.get(prefixed(PREFIX.state, hexDigitsToBytes(key)));
    // The empty trie's root names no node: it reads as absent, as in any archive.
    if (value !== undefined || !this.partial || key === EMPTY_ROOT_KEY) return value;
    throw key.length === CODE_KEY_HEX_LENGTH ? new MissingCodeError(hexDigitsToBytes(key).subarray(1)) : new MissingTrieNodeError(hexDigitsToBytes(key));
  }

  /**
   * Writes fetched trie nodes (by unprefixed hex hash) straight to the database (content-addressed,
   * so never stale), or with `holdFetched` keeps them for the next block's batch.
   */
  async storeNodes(nodes: ReadonlyMap<string, Uint8Array>): Promise<void> {
    if (this.holdFetched) {
      for (const [key, value] of nodes) this.fetched.set(key, value);
      return;
    }
    await this.level.batch([...nodes].map(([key, value]): BatchOp => ({ type: 'put', key: prefixed(PREFIX.state, hexDigitsToBytes(key)), value })));
  }

  /** Writes fetched contract code under its hash, where @ethereumjs keeps code (with `holdFetched`: with the next block's batch). */
  async storeCode(codeHash: Uint8Array, code: Uint8Array): Promise<void> {
    if (this.holdFetched) {
      this.fetched.set(codeKey(codeHash), code);
      return;
    }
    await this.level.put(prefixed(PREFIX.state, concatBytes(CODEHASH_PREFIX, codeHash)), code);
  }

  async put(key: string, value: string | Uint8Array, _opts?: EncodingOpts): Promise<void> {
    this.pending.set(key, toBytes(value));
  }

  /** Ignored: an archive keeps every node (the trie never prunes, so this is not called). */
  async del(_key: string, _opts?: EncodingOpts): Promise<void> {}

  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of ops) {
      if (op.type === 'put') this.pending.set(op.key, toBytes(op.value));
    }
  }

  /** The same store: tries shallow-copied from one another share one overlay. */
  shallowCopy(): DB<string, string | Uint8Array> {
    return this;
  }

  async open(): Promise<void> {}

  /** Moves the pending writes, and the fetched state held, into `ops` (as LevelDB puts) and clears both. */
  drain(ops: BatchOp[]): number {
    for (const [key, value] of this.pending) {
      ops.push({ type: 'put', key: prefixed(PREFIX.state, hexDigitsToBytes(key)), value });
      this.recent?.set(key, value);
    }
    for (const [key, value] of this.fetched) {
      if (this.pending.has(key)) continue;
      ops.push({ type: 'put', key: prefixed(PREFIX.state, hexDigitsToBytes(key)), value });
      this.recent?.set(key, value);
    }
    const n = this.pending.size;
    this.pending = new Map();
    this.fetched = new Map();
    return n;
  }

  /** Drops the pending writes (a block that failed verification); fetched state held stays for the next batch. */
  discard(): void {
    this.pending = new Map();
  }
}

/** The datadir's state-root alias, if it has one. */
export async function readStateRootAlias(level: Level): Promise<StateRootAlias | undefined> {
  const value = await level.get(META.stateRootAlias);
  if (!value) return undefined;
  if (value.length !== 64) throw new Error(`database corrupt: the state root alias has ${value.length} bytes, not 64`);
  return { headerRoot: value.slice(0, 32), trieRoot: value.slice(32) };
}

/** The write that records a state-root alias (init). */
export function stateRootAliasOp(alias: StateRootAlias): BatchOp {
  const value = new Uint8Array(64);
  value.set(alias.headerRoot, 0);
  value.set(alias.trieRoot, 32);
  return { type: 'put', key: META.stateRootAlias, value };
}

/**
 * Where the state a header names `stateRoot` is kept in `db`: {@link TrieDB.stateTrieRoot} for a
 * datadir's trie database (and those wrapping it); a database that knows of no alias keeps every
 * state under its own root.
 */
export async function stateTrieRoot(db: DB<string, string | Uint8Array>, stateRoot: Uint8Array): Promise<Uint8Array> {
  const roots = db as Partial<StateRoots>;
  return typeof roots.stateTrieRoot === 'function' ? roots.stateTrieRoot(stateRoot) : stateRoot;
}

/** The empty trie's root (keccak256 of rlp('')), as a key. */
const EMPTY_ROOT_KEY = bytesToUnprefixedHex(KECCAK256_RLP);

/** Code is kept under `c ++ hash` (@ethereumjs CODEHASH_PREFIX): 33 bytes, where a node's key is its 32-byte hash. */
const CODE_KEY_HEX_LENGTH = 66;

/** The trie database key of contract code (unprefixed hex). */
export function codeKey(codeHash: Uint8Array): string {
  return bytesToUnprefixedHex(concatBytes(CODEHASH_PREFIX, codeHash));
}

function toBytes(value: string | Uint8Array): Uint8Array {
  return typeof value === 'string' ? hexDigitsToBytes(value) : value;
}
