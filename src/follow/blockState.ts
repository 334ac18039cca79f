import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, bytesToUnprefixedHex, equalsBytes, hexToBytes } from '@ethereumjs/util';
import { type ArchiveStart, ancestorHashesOp, recordedAncestorHash } from '../chain/archiveStart.js';
import { LruCache } from '../chain/lru.js';
import type { ChainStore } from '../chain/store.js';
import type { BlockStateProvider } from '../import/partialState.js';
import type { FetchOnMissOptions } from '../state/fetchOnMiss.js';
import { MissingTrieNodeError, RemoteStateError, type StateProof, type StateSource } from '../state/stateSource.js';
import type { TrieDB } from '../state/trieDb.js';
import { fetchAncestorHashes } from './ancestorHashes.js';
import { askPrestate, fetchPrestate, type PrestateAhead } from './prestateSource.js';
import { type Upstream, UpstreamRpcError } from './upstream.js';
import { hexString } from './upstreamBlocks.js';
import { parseProof, unreachable } from './upstreamState.js';
import { fetchWitness, witnessOf } from './witnessSource.js';

/**
 * The state the follower of an archive that starts at block N executes each block on
 * (`import/partialState.ts`). No state is downloaded up front: before block B runs on B−1's
 * state, what it reads is fetched from the followed node, by the first of these it serves:
 *
 * - `witness`: `debug_executionWitness(B)` (geth, reth, erigon, tracenode): every trie node and
 *   code in one call (`witnessSource.ts`);
 * - `prestate`: the accounts and slots of a `prestateTracer` trace of B (anvil), fetched with
 *   batched `eth_getProof` at B−1 (`prestateSource.ts`);
 * - `onMiss`: nothing before; each node and code is fetched as the block reads it.
 *
 * Which one works is found on the first block (an error answer before a source ever worked
 * means the node does not serve it, as `upstreamBlocks.ts` finds debug_getRawBlock) and logged
 * once; what a block still misses is fetched on miss (`state/fetchOnMiss.ts`) with proofs and code
 * at B−1, by its hash. Every node let in hangs from B−1's state root; B's own roots are computed
 * and compared by the importer. What was fetched is stored in the archive under its own hash.
 * BLOCKHASH of a block below N is answered from the witness's headers, or else from the upstream's
 * blocks, each chained by its hash to block N's parentHash.
 */

export type BlockStateKind = 'witness' | 'prestate' | 'onMiss';

/** What was fetched for the followed blocks since start (the metrics, the progress lines). */
export interface BlockStateStats {
  /** The source found for this upstream. */
  source?: BlockStateKind;
  /** Blocks prepared, by the source that fetched their state. */
  blocks: Record<BlockStateKind, number>;
  /** JSON-RPC calls made to the upstream for state, by source (fetch on miss as `onMiss`). */
  calls: Record<BlockStateKind, number>;
  /** Trie nodes and codes stored, and the bytes received. */
  nodes: number;
  codes: number;
  bytes: number;
  /** Siblings of collapsed branches fetched through a searched key, and the keccak256 the searches computed. */
  siblings: number;
  searchHashes: number;
  /** Seconds spent fetching before execution. */
  seconds: number;
}

/**
 * Blocks whose state is asked for ahead of their execution, by source. A witness costs the
 * upstream a replay of the block, so a few ahead keep it busy without starving a node on the same
 * machine; a prestate trace and proofs cost it little and mostly wait, so more are in flight
 * (following the bench chain from anvil: 10.8-11.6 Mgas/s with 3 ahead, 12.4-12.9 with 8, for
 * 5.4 and 5.9 calls a block, the proofs of blocks further ahead being checked against an older
 * state).
 */
const AHEAD = { witness: 3, prestate: 8 } as const;

/** Nodes the checks of what is held keep in memory. */
const HELD_NODES = 20_000;

/** What was asked ahead for a block: its witness, or its prestate. */
interface Early {
  witness?: Promise<unknown>;
  prestate?: PrestateAhead;
}

/** Whether `answer` came (one asked ahead that failed is asked again). */
function came(answer: Promise<unknown>): Promise<boolean> {
  return answer.then(
    () => true,
    () => false,
  );
}

const LINES: Record<BlockStateKind, string> = {
  witness: 'state of followed blocks: debug_executionWitness (every trie node and code a block reads, in one call, checked against its parent state root)',
  prestate:
    'state of followed blocks: the accounts and slots of a prestateTracer trace, fetched with batched eth_getProof at the parent (the upstream has no debug_executionWitness)',
  onMiss: 'state of followed blocks: fetched as each block reads it (the upstream has neither debug_executionWitness nor a prestateTracer)',
};

export class FollowedBlockState implements BlockStateProvider {
  readonly source: StateSource;
  readonly fetchOptions: FetchOnMissOptions;
  readonly stats: BlockStateStats = {
    blocks: { witness: 0, prestate: 0, onMiss: 0 },
    calls: { witness: 0, prestate: 0, onMiss: 0 },
    nodes: 0,
    codes: 0,
    bytes: 0,
    siblings: 0,
    searchHashes: 0,
    seconds: 0,
  };
  private kind: BlockStateKind | undefined;
  /** Whether the log has said once that witnesses hold nodes that hang from nothing trusted. */
  private saidUnreachable = false;
  private parent: BlockHeader | undefined;
  private readonly ancestors = new Map<bigint, Uint8Array>();
  /** Whether the hashes below N were looked for in the datadir (and fetched when absent). */
  private ancestorsRecorded = false;
  /** Blocks announced and not prepared yet, in order; what was asked ahead for the first of them, by block hash. */
  private queue: Block[] = [];
  private readonly early = new Map<string, Early>();

  constructor(
    private readonly upstream: Upstream,
    /** The importer's trie database too: what is fetched is held there until the block's batch. */
    readonly trieDb: TrieDB,
    private readonly chain: { store: ChainStore; start: ArchiveStart; common: Common },
    maxSearchNibbles: number,
    private readonly info: (obj: object, msg: string) => void,
  ) {
    this.source = new AtParent(
      upstream,
      () => this.parent,
      () => this.stats.calls.onMiss++,
    );
    this.fetchOptions = {
      maxSearchNibbles,
      onSibling: ({ hashes }) => {
        this.stats.siblings++;
        this.stats.searchHashes += hashes;
      },
    };
  }

  /**
   * A node of the datadir, decoded, if held (the prestate source skips the keys whose paths are):
   * the nodes near the roots are read for every key, so those found are kept (a node never changes).
   */
  private readonly held = async (hash: Uint8Array): Promise<unknown[] | undefined> => {
    const key = bytesToUnprefixedHex(hash);
    const known = this.heldNodes.get(key);
    if (known !== undefined) return known;
    try {
      const node = await this.trieDb.get(key);
      if (node === undefined) return undefined;
      const items = RLP.decode(node) as unknown[];
      this.heldNodes.set(key, items);
      return items;
    } catch (err) {
      if (err instanceof MissingTrieNodeError) return undefined;
      throw err;
    }
  };
  private readonly heldNodes = new LruCache<string, unknown[]>(HELD_NODES);

  /** State calls made since start, all sources together. */
  calls(): number {
    const c = this.stats.calls;
    return c.witness + c.prestate + c.onMiss;
  }

  /**
   * The blocks about to be executed, in order (the follower's catch-up batches): the state of the
   * next few ({@link AHEAD}) is asked for while the ones before them execute, so the upstream's latency
   * overlaps execution. What is asked ahead is checked when its block is prepared, against its
   * parent's state root, as anything else.
   */
  upcoming(blocks: readonly Block[]): void {
    this.queue.push(...blocks);
    this.askAhead();
  }

  async prepare(block: Block, parent: BlockHeader): Promise<void> {
    this.parent = parent;
    // A datadir whose init could not record the hashes below N (or older than them) gets them
    // before its first block: the EVM workers' BLOCKHASH reads them from the datadir.
    if (!this.ancestorsRecorded) {
      this.ancestorsRecorded = true;
      await this.ancestorHash(this.chain.start.number - 1n).catch((err: unknown) =>
        this.info(
          { upstream: this.upstream.shownUrl, reason: (err as Error).message },
          'the hashes of the blocks below N are not recorded: BLOCKHASH of them is fetched as blocks use it',
        ),
      );
    }
    const early = this.takeEarly(block);
    const t0 = performance.now();
    try {
      this.stats.blocks[await this.fetchFor(block, parent, early)]++;
    } finally {
      this.stats.seconds += (performance.now() - t0) / 1000;
      this.askAhead();
    }
  }

  /** The answer asked ahead for `block`, if any; the queue moves past it (blocks before it will not come). */
  private takeEarly(block: Block): Early | undefined {
    const key = bytesToHex(block.hash());
    const at = this.queue.findIndex((b) => bytesToHex(b.hash()) === key);
    const dropped = at < 0 ? this.queue : this.queue.slice(0, at + 1);
    this.queue = at < 0 ? [] : this.queue.slice(at + 1);
    const early = this.early.get(key);
    for (const b of dropped) this.early.delete(bytesToHex(b.hash()));
    return early;
  }

  /** Asks for the state of the next queued blocks, {@link AHEAD} of them for the source (once it is known). */
  private askAhead(): void {
    if (this.kind !== 'witness' && this.kind !== 'prestate') return;
    for (const block of this.queue.slice(0, AHEAD[this.kind])) {
      const key = bytesToHex(block.hash());
      if (this.early.has(key)) continue;
      if (this.kind === 'witness') {
        this.stats.calls.witness++;
        const witness = witnessOf(this.upstream, block.header.number);
        witness.catch(() => undefined); // awaited when the block is prepared (or dropped)
        this.early.set(key, { witness });
      } else {
        this.early.set(key, { prestate: askPrestate(this.upstream, block, this.held, this.parent?.stateRoot) });
      }
    }
  }

  /**
   * Fetches the state of `block` from the first source the upstream serves; which one. `early`:
   * the answer asked ahead (a failed one is asked again).
   */
  private async fetchFor(block: Block, parent: BlockHeader, early: Early | undefined): Promise<BlockStateKind> {
    const n = block.header.number;
    if (this.kind === undefined || this.kind === 'witness') {
      // A witness asked ahead that failed is asked again.
      const witness = early?.witness !== undefined && (await came(early.witness)) ? early.witness : undefined;
      if (witness === undefined) this.stats.calls.witness++;
      try {
        const w = await fetchWitness(this.upstream, n, parent, this.trieDb, this.chain.common, witness);
        this.took(w);
        if (w.unreachable > 0 && !this.saidUnreachable) {
          this.saidUnreachable = true;
          this.info(
            { upstream: this.upstream.shownUrl, block: Number(n), nodes: w.unreachable },
            `the upstream's execution witnesses hold trie nodes that do not hang from the parent's state root (block ${n}: ${w.unreachable}): they are left out, and what a block lacks is fetched by proof`,
          );
        }
        for (const [number, hash] of w.ancestors) if (number < this.chain.start.number) this.ancestors.set(number, hash);
        return this.found('witness');
      } catch (err) {
        if (!this.notServed(err)) throw err;
      }
    }
    if (this.kind === undefined || this.kind === 'prestate') {
      const ahead = early?.prestate !== undefined && (await came(early.prestate.trace)) ? early.prestate : undefined;
      try {
        const p = await fetchPrestate(this.upstream, block, parent, this.trieDb, this.held, ahead);
        this.stats.calls.prestate += p.calls + (ahead?.calls ?? 0);
        this.took(p);
        return this.found('prestate');
      } catch (err) {
        this.stats.calls.prestate++;
        if (!this.notServed(err)) throw err;
      }
    }
    return this.found('onMiss');
  }

  /** An error answer before any source worked: the upstream does not serve this one. */
  private notServed(err: unknown): boolean {
    return err instanceof UpstreamRpcError && this.kind === undefined;
  }

  private took(f: { nodes: number; codes: number; bytes: number }): void {
    this.stats.nodes += f.nodes;
    this.stats.codes += f.codes;
    this.stats.bytes += f.bytes;
  }

  private found(kind: BlockStateKind): BlockStateKind {
    if (this.kind !== kind) {
      this.kind = kind;
      this.stats.source = kind;
      this.info({ upstream: this.upstream.shownUrl, source: kind }, LINES[kind]);
    }
    return kind;
  }

  /** The hash of block `number` below the archive's start, chained by hashes to block N's parentHash. */
  async ancestorHash(number: bigint): Promise<Uint8Array | undefined> {
    if (number >= this.chain.start.number || number < 0n) return undefined;
    const known = this.ancestors.get(number) ?? (await recordedAncestorHash(this.chain.store.level, this.chain.start, number));
    if (known !== undefined) return known;
    try {
      await this.recordAncestors();
    } catch (err) {
      // A block hash BLOCKHASH needs, not state: say which header, and where it was looked for.
      const reason = unreachable(err).message.replace(/^state not held locally, and the upstream could not give it: /, '');
      throw new RemoteStateError(
        'unreachable',
        `BLOCKHASH needs the hash of block ${number}, below this archive's first block ${this.chain.start.number}: it is not recorded in the datadir nor among the execution witness's headers, and the upstream's headers of blocks ${this.chain.start.number - 256n > 0n ? this.chain.start.number - 256n : 0n}..${this.chain.start.number - 1n} (eth_getBlockByNumber) could not give it: ${reason}`,
      );
    }
    return this.ancestors.get(number);
  }

  /**
   * Fetches and records the hashes of the blocks below N that BLOCKHASH can name
   * (META.archiveAncestors: the EVM workers read them there), when init could not.
   */
  private async recordAncestors(): Promise<void> {
    const first = await this.chain.store.headerByHash(this.chain.start.hash);
    if (!first) throw new Error("the archive's first block is not stored");
    const hashes = await fetchAncestorHashes(this.upstream, this.chain.common, first);
    const from = this.chain.start.number - BigInt(hashes.length);
    for (const [i, hash] of hashes.entries()) this.ancestors.set(from + BigInt(i), hash);
    await this.chain.store.level.batch([ancestorHashesOp(hashes)]);
  }
}

/** Proofs and code at the parent of the block being executed, by its hash (EIP-1898); what does not come is retryable. */
class AtParent implements StateSource {
  constructor(
    private readonly upstream: Upstream,
    private readonly parent: () => BlockHeader | undefined,
    private readonly counted: () => void,
  ) {}

  async proveAccount(address: Uint8Array, slots: readonly Uint8Array[], stateRoot: Uint8Array): Promise<StateProof> {
    const at = this.at(stateRoot);
    this.counted();
    try {
      const answer = await this.upstream.call('eth_getProof', [bytesToHex(address), slots.map(bytesToHex), { blockHash: bytesToHex(at.hash()) }]);
      const proof = parseProof(answer, slots.length);
      proof.root = at.stateRoot;
      return proof;
    } catch (err) {
      throw unreachable(err);
    }
  }

  async code(address: Uint8Array, stateRoot: Uint8Array): Promise<Uint8Array> {
    const at = this.at(stateRoot);
    this.counted();
    try {
      const answer = await this.upstream.call('eth_getCode', [bytesToHex(address), { blockHash: bytesToHex(at.hash()) }]);
      return hexToBytes(hexString(answer, 'code') as `0x${string}`);
    } catch (err) {
      throw unreachable(err);
    }
  }

  private at(stateRoot: Uint8Array): BlockHeader {
    const parent = this.parent();
    if (parent === undefined || !equalsBytes(parent.stateRoot, stateRoot)) {
      throw new RemoteStateError('unavailable', `state ${bytesToHex(stateRoot)} is not the state of the block being executed on`);
    }
    return parent;
  }
}
