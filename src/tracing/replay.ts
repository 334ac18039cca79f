import type { Block } from '@ethereumjs/block';
import { bytesToHex, type DB } from '@ethereumjs/util';
import { runBlock, type VM } from '@ethereumjs/vm';
import { LRUCache } from 'lru-cache';
import pLimit from 'p-limit';
import { evmBlockchain } from '../chain/blockHashes.js';
import { loadedStateKept } from '../chain/loadedState.js';
import { opAnvilQuirksKept } from '../chain/op/anvilQuirks.js';
import type { EthereumChain } from '../chain/open.js';
import { systemWritesSkipped } from '../chain/systemWrites.js';
import type { Config } from '../config/settings.js';
import { blockVmCommon, createBlockVM } from '../execution/blockRun.js';
import { keepLoadedState } from '../execution/loadedState.js';
import { executeOpBlock } from '../execution/op/opBlockRun.js';
import { createOpVM } from '../execution/op/opVm.js';
import { overlayStateManager } from '../execution/trieOverlay.js';
import { raceFetchOnMiss } from '../state/fetchOnMiss.js';
import type { TraceNode, TxCallTree } from './callTree.js';
import { attachRecorder } from './recorder.js';
import { blockRewards, type Reward } from './rewards.js';

/**
 * Replaying blocks for tracing: a block runs again on its parent's state root, with the recorder
 * attached, over a write overlay so that nothing reaches the database. When serving, replays run
 * in the EVM workers (the trace service's `replay` option); on this thread (reindexing, tests)
 * they run under a concurrency limit (`tracing.maxConcurrentReplays`: more would only
 * interleave, each finishing later, and hold more state in memory; others wait in FIFO order).
 * Recently traced blocks are kept in a memory-bounded cache (`tracing.cacheBytes`,
 * estimated as a fixed cost per frame plus its input and output bytes), so trace_transaction for
 * several transactions of one block replays it once.
 */

/** Estimated bytes of one frame besides its data (object, arrays, bigints, addresses). */
const FRAME_OVERHEAD_BYTES = 320;

/** Everything trace_block needs about one block: its transactions' call trees and its rewards. */
export interface BlockTraces {
  number: bigint;
  hash: Uint8Array;
  txs: TxCallTree[];
  rewards: Reward[];
}

/**
 * A VM on the state of `block`'s parent, its trie writes in a per-run overlay over `stateDb` (the
 * serving node's read-only, LRU-cached trie database). Throws when the parent is unknown.
 */
export async function vmOnParent(chain: EthereumChain, stateDb: DB<string, string | Uint8Array>, block: Block, what: string): Promise<VM> {
  const parent = await chain.store.headerByHash(block.header.parentHash);
  if (!parent) throw new Error(`cannot ${what} block ${block.header.number}: parent ${bytesToHex(block.header.parentHash)} missing`);
  // A copy: runBlock sets the hardfork on the VM's Common, and replays run concurrently. A chain
  // made without the EIP-4788/2935 system writes (Hardhat) is replayed without them too, and one
  // whose state keeps what its transactions loaded (anvil) keeps it in replays too. Replays run
  // runBlock itself: its Common hides the EIP-7002/7251 request calls, which come after every
  // transaction and write only their contracts' storage, so no trace shows them.
  const common = blockVmCommon(chain.common, !(await systemWritesSkipped(chain.level)));
  // In an archive from block N, what the datadir lacks is fetched as the block reads it.
  const stateManager = await overlayStateManager(common, stateDb, parent.stateRoot);
  // BLOCKHASH along the block's own ancestry: a block no longer canonical replays as it ran.
  const tip = { number: block.header.number - 1n, hash: block.header.parentHash };
  const blockchain = evmBlockchain(chain.store, undefined, () => tip) as never;
  // An OP-stack block runs on the VM of its upgrade (`execution/op/opVm.ts`).
  const vm = chain.op ? await createOpVM(chain.op, block, stateManager, blockchain) : await createBlockVM({ common, stateManager, blockchain });
  if (await loadedStateKept(chain.level)) keepLoadedState(vm);
  return vm;
}

/**
 * Runs `block` on a VM from {@link vmOnParent}, as the importer ran it and without checking its
 * roots: an Ethereum block by runBlock, an OP-stack block by the OP executor (deposits, the L1 and
 * operator fees; as anvil's OP mode makes blocks when the datadir recorded so).
 */
export async function runOnVm(chain: EthereumChain, vm: VM, block: Block): Promise<void> {
  if (chain.op !== undefined) {
    const quirks = (await opAnvilQuirksKept(chain.level)) ? ('anvil' as const) : undefined;
    const transactions = block.transactions.map((tx) => tx.serialize());
    await executeOpBlock(vm, { block, transactions, rollup: chain.op, ...(quirks ? { quirks } : {}) });
    return;
  }
  await runBlock(vm, { block, generate: true, skipHeaderValidation: true, skipBlockValidation: true, setHardfork: true });
}

/**
 * Executes `block` on its parent's state and returns the call tree of every transaction. Nothing
 * is written: trie writes go to a per-replay overlay over `stateDb` (the serving node's
 * read-only, LRU-cached trie database). Throws when the parent is unknown. `observe` sees the VM
 * before it runs (more recorders: the state diffs of ad-hoc tracing).
 */
export async function replayBlock(
  chain: EthereumChain,
  stateDb: DB<string, string | Uint8Array>,
  block: Block,
  observe?: (vm: VM) => void,
): Promise<TxCallTree[]> {
  if (block.transactions.length === 0) return [];
  const vm = await vmOnParent(chain, stateDb, block, 'replay');
  const recorder = attachRecorder(vm);
  observe?.(vm);
  await raceFetchOnMiss(vm.stateManager, runOnVm(chain, vm, block));
  return recorder.take();
}

/** Bytes a block's trees hold, roughly (what `tracing.cacheBytes` counts). */
export function estimateTraceBytes(txs: readonly TxCallTree[]): number {
  let total = 0;
  const visit = (node: TraceNode): void => {
    total += FRAME_OVERHEAD_BYTES;
    if (node.kind === 'selfdestruct') return;
    total += node.input.length + node.output.length;
    for (const child of node.children) visit(child);
  };
  for (const tx of txs) visit(tx.root);
  return total;
}

/** Who asks for a replay: the request's abort signal and identity (the EVM workers' admission). */
export interface ReplayRequest {
  /** An AbortSignal, or the request pipeline's lighter signal of the same shape. */
  signal?: {
    readonly aborted: boolean;
    addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
    removeEventListener(type: 'abort', listener: () => void): void;
  };
  owner?: object;
}

/** Replays a block elsewhere (the EVM workers), in place of {@link replayBlock} on this thread. */
export type Replayer = (block: Block, request?: ReplayRequest) => Promise<TxCallTree[]>;

/** Options of {@link createTraceService}. */
export interface TraceServiceOptions {
  /** Where trie nodes are read from: the server's shared read-only trie database. */
  stateDb: DB<string, string | Uint8Array>;
  /** The `tracing` settings: the cache's byte budget and the replays run at once. */
  settings: Config['tracing'];
  /**
   * Where replays run: the EVM workers when serving (their own queue bounds them), else this
   * thread under `tracing.maxConcurrentReplays`.
   */
  replay?: Replayer;
}

/** Traces blocks for the RPC methods: cached, deduplicated, under a concurrency limit. */
export interface TraceService {
  /** The traces of a stored block (the genesis has none). */
  blockTraces(block: Block, request?: ReplayRequest): Promise<BlockTraces>;
  /**
   * The traces of the stored block with this hash, undefined when unknown. A cached block is
   * answered without reading (and decoding) the block itself.
   */
  tracesByHash(hash: Uint8Array, request?: ReplayRequest): Promise<BlockTraces | undefined>;
  /** Cached blocks and their estimated bytes (for tests and diagnostics). */
  cacheStats(): { blocks: number; bytes: number };
}

/** Builds the trace service of an opened chain. */
export function createTraceService(chain: EthereumChain, opts: TraceServiceOptions): TraceService {
  const maxBytes = opts.settings.cacheBytes;
  const limit = pLimit(opts.settings.maxConcurrentReplays);
  const replay: Replayer = opts.replay ?? ((block) => limit(() => replayBlock(chain, opts.stateDb, block)));
  // A strict byte budget (lru-cache's maxSize): a trace replay costs milliseconds, so the
  // reordering on each hit that the request path's two-generation LruCache avoids costs nothing here.
  const cache = new LRUCache<string, { traces: BlockTraces; bytes: number }>({ maxSize: maxBytes, sizeCalculation: (entry) => entry.bytes });
  // Replays under way by block hash, with the abort signal of the request that started each.
  const inFlight = new Map<string, { promise: Promise<BlockTraces>; signal: ReplayRequest['signal'] }>();

  const remember = (key: string, traces: BlockTraces): void => {
    const bytes = estimateTraceBytes(traces.txs) + FRAME_OVERHEAD_BYTES * (traces.rewards.length + 1);
    if (bytes <= maxBytes) cache.set(key, { traces, bytes });
  };

  const service: TraceService = {
    async tracesByHash(hash: Uint8Array, request?: ReplayRequest): Promise<BlockTraces | undefined> {
      const hit = cache.get(bytesToHex(hash));
      if (hit) return hit.traces;
      const block = await chain.store.blockByHash(hash);
      return block ? service.blockTraces(block, request) : undefined;
    },
    async blockTraces(block: Block, request?: ReplayRequest): Promise<BlockTraces> {
      const key = bytesToHex(block.hash());
      const hit = cache.get(key);
      if (hit) return hit.traces;
      const running = inFlight.get(key);
      if (running) {
        try {
          return await running.promise;
        } catch (err) {
          // The replay was dropped because the request that started it went away: this one still
          // wants it, so it asks again.
          if (running.signal?.aborted && !request?.signal?.aborted) return service.blockTraces(block, request);
          throw err;
        }
      }
      const promise = (async () => {
        const txs = block.header.number === 0n || block.transactions.length === 0 ? [] : await replay(block, request);
        const traces: BlockTraces = { number: block.header.number, hash: block.hash(), txs, rewards: block.header.number === 0n ? [] : blockRewards(block) };
        remember(key, traces);
        return traces;
      })();
      inFlight.set(key, { promise, signal: request?.signal });
      try {
        return await promise;
      } finally {
        inFlight.delete(key);
      }
    },
    cacheStats() {
      return { blocks: cache.size, bytes: cache.calculatedSize };
    },
  };
  return service;
}
