import type { Common } from '@ethereumjs/common';
import type { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import type { BatchDBOp, DB, EncodingOpts } from '@ethereumjs/util';
import { DEFAULT_SEARCH_NIBBLES, FetchOnMiss } from '../state/fetchOnMiss.js';
import type { RemoteState } from '../state/remoteState.js';
import { openStateTrie } from '../state/stateManager.js';
import { type StateRoots, stateTrieRoot } from '../state/trieDb.js';
import { writeStorageBack } from './evm/storage.js';

/**
 * A trie whose writes stay in memory and are dropped with it, over the archive's read-only trie
 * database: the state of block replays (tracing) and of simulated blocks (eth_simulateV1).
 * Reads fall through to `base`; nodes are keyed by hash, so shared entries never go stale.
 */
export class TrieOverlay implements DB<string, string | Uint8Array>, StateRoots {
  private readonly writes = new Map<string, Uint8Array | string>();
  constructor(private readonly base: DB<string, string | Uint8Array>) {}
  /** The base's trie root for a header's state root (its datadir's alias). */
  stateTrieRoot(stateRoot: Uint8Array): Promise<Uint8Array> {
    return stateTrieRoot(this.base, stateRoot);
  }
  async get(key: string, opts?: EncodingOpts): Promise<string | Uint8Array | undefined> {
    return this.writes.get(key) ?? (await this.base.get(key, opts));
  }
  async put(key: string, value: string | Uint8Array): Promise<void> {
    this.writes.set(key, value);
  }
  async del(): Promise<void> {
    // The archive never deletes trie nodes (they are keyed by hash and shared between blocks).
  }
  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of ops) if (op.type === 'put') this.writes.set(op.key, op.value);
  }
  shallowCopy(): DB<string, string | Uint8Array> {
    return this;
  }
  async open(): Promise<void> {}
}

/**
 * The state trie of the state a header names `stateRoot`, writable in memory over the archive's
 * `stateDb` (opened where every state trie is, with the datadir's state-root alias applied).
 */
export async function overlayTrie(stateDb: DB<string, string | Uint8Array>, stateRoot: Uint8Array): Promise<MerklePatriciaTrie> {
  return openStateTrie(new TrieOverlay(stateDb), stateRoot, 0);
}

/** A trie database that can fetch what its datadir lacks (an archive from block N: `state/nodeCache.ts`), or wraps one. */
interface FetchCapable {
  readonly remote?: RemoteState;
}

/** The fetch on miss `stateDb` carries, if any. */
export function remoteStateOf(stateDb: DB<string, string | Uint8Array>): RemoteState | undefined {
  return (stateDb as FetchCapable).remote;
}

/**
 * A MerkleStateManager (with caches) on the state `stateRoot`, its writes in a memory overlay over
 * `stateDb`: trace replays, the witness generator and eth_simulateV1 run on it. In an archive
 * from block N, what the datadir lacks is fetched as it is read (`state/fetchOnMiss.ts`); such a
 * run is raced against a failed fetch with `raceFetchOnMiss`.
 */
export async function overlayStateManager(common: Common, stateDb: DB<string, string | Uint8Array>, stateRoot: Uint8Array): Promise<MerkleStateManager> {
  const { trie, fetcher } = await fetchingOverlayTrie(stateDb, stateRoot);
  const sm = new MerkleStateManager({ common, trie, caches: new Caches() });
  writeStorageBack(sm);
  fetcher?.attachCode(sm);
  return sm;
}

/**
 * The state trie of `stateRoot`, writable in memory over `stateDb`; in an archive from block N,
 * with the fetch on miss that fills what the datadir lacks (the trie and the storage tries copied
 * from it are wrapped: `state/fetchOnMiss.ts`).
 */
export async function fetchingOverlayTrie(
  stateDb: DB<string, string | Uint8Array>,
  stateRoot: Uint8Array,
): Promise<{ trie: MerklePatriciaTrie; fetcher?: FetchOnMiss }> {
  const remote = remoteStateOf(stateDb);
  if (remote === undefined) return { trie: await overlayTrie(stateDb, stateRoot) };
  const fetcher = new FetchOnMiss(remote.source, remote.store, stateDb, stateRoot, {
    maxSearchNibbles: DEFAULT_SEARCH_NIBBLES,
    onFetch: (kind) => remote.note(kind === 'code' ? 'code' : 'proof'),
  });
  const trie = await openStateTrie(new TrieOverlay(fetcher.db()), stateRoot, 0);
  fetcher.attach(trie);
  return { trie, fetcher };
}
