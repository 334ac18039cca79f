import { availableParallelism } from 'node:os';
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { CacheStats } from '../chain/lru.js';
import type { EthereumChain } from '../chain/open.js';
import type { Config } from '../config/settings.js';
import type { AccessListResult } from '../execution/accessList.js';
import type { CallRequest } from '../execution/callArgs.js';
import type { CallOverrides } from '../execution/callEngine.js';
import { type CallResult, CallTimeoutError } from '../execution/callResult.js';
import type { SimulatedBlock } from '../execution/simulate/result.js';
import type { SimulateRequest } from '../execution/simulate/simulate.js';
import type { StateSource } from '../state/stateSource.js';
import type { ReplayedTx, TraceCallItem, TracedRun } from '../tracing/adHoc.js';
import type { TxCallTree } from '../tracing/callTree.js';
import { type CallJob, cachedCalls, cachedEstimates } from './callCache.js';
import { type DebugTraceRunner, debugTraceRunner } from './debugJobs.js';
import { decodeError } from './errors.js';
import type { EvmJob, EvmWorkerData } from './jobs.js';
import { type JobOptions, type PoolStats, WorkerPool } from './pool.js';
import { cachedReplayDiffs } from './replayDiffCache.js';
import { serveStateChannel, stateChannelName, type WorkerStateReads } from './stateChannel.js';
import { workerModule } from './threads.js';
import { type WitnessRunner, witnessRunner } from './witnessJobs.js';

/**
 * The EVM work of one network, run in worker threads (`pool.ts`, `evmWorker.ts`): the main thread
 * that serves every client never runs the EVM. Calls and gas estimates keep the call engine's
 * interface and answers; block replays feed the trace service.
 */

/** eth_call and eth_estimateGas as the methods see them (the call engine's interface). */
export interface CallRunner {
  /** The gas cap at a block: the default and the maximum gas of a call there. */
  gasCap(header: BlockHeader): bigint;
  /** eth_call; answers are kept per block and call (`callCache.ts`) unless `job.cache` is false. */
  call(header: BlockHeader, request: CallRequest, overrides?: CallOverrides, job?: CallJob): Promise<CallResult>;
  /** The call result cache's lookups and entries (the metrics' `call_results` cache). */
  cacheStats(): CacheStats;
  /** eth_estimateGas; answers are kept per block and call as eth_call's are, unless `job.cache` is false. */
  estimateGas(header: BlockHeader, request: CallRequest, overrides?: CallOverrides, job?: CallJob): Promise<bigint>;
  /** The estimate cache's lookups and entries (the metrics' `gas_estimates` cache). */
  estimateCacheStats(): CacheStats;
  /** eth_createAccessList; `request` carries geth's fee defaults. */
  createAccessList(header: BlockHeader, request: CallRequest, overrides?: CallOverrides, job?: JobOptions): Promise<AccessListResult>;
  /** eth_simulateV1: the simulated blocks, which `methods/` renders. */
  simulate(header: BlockHeader, request: SimulateRequest, job?: JobOptions): Promise<SimulatedBlock[]>;
}

/** Ad-hoc Parity tracing (tracing/adHoc.ts) in the workers. */
export interface AdHocRunner {
  /** Calls traced in sequence at a block: the gas cap, deadline and queue of eth_call. */
  traceCalls(header: BlockHeader, calls: TraceCallItem[], overrides?: CallOverrides, job?: JobOptions): Promise<TracedRun[]>;
  /** A stored block replayed with the state diff of transaction `only` (all when undefined): the replays' deadline. */
  replayDiffs(block: Block, only?: number, job?: JobOptions): Promise<ReplayedTx[]>;
}

export interface EvmService {
  readonly calls: CallRunner;
  readonly adHoc: AdHocRunner;
  /** Replays a stored block with the tracer (trace_block, trace_transaction, trace_filter). */
  replay(block: Block, job?: JobOptions): Promise<TxCallTree[]>;
  /** geth's debug tracers (debug_trace*). */
  readonly debug: DebugTraceRunner;
  /** A stored block's execution witness (debug_executionWitness). */
  readonly witness: WitnessRunner;
  stats(): PoolStats;
  /** An archive from block N: the state reads of the workers, summed (for the local hit rate). */
  stateReads(): WorkerStateReads;
  /** Starts every worker now (serving), instead of on the first jobs. */
  warm(): void;
  /** Lets running jobs finish (each within its deadline), then stops the workers. */
  close(): Promise<void>;
}

/** The settings the service reads: the pool's (`execution`) and the workers' own (the whole Config). */
export type EvmServiceConfig = Config;

/** Workers when `execution.evmWorkers` is not set: one a core. */
export function defaultEvmWorkers(): number {
  return Math.max(1, availableParallelism());
}

/**
 * The EVM workers of `chain`. In an archive from block N, `stateSource` (the followed node) gives
 * the workers the state the datadir does not hold, over a channel of the network's own
 * (`stateChannel.ts`).
 */
export function createEvmService(
  chain: EthereumChain,
  config: EvmServiceConfig,
  onWorkerFailure?: (reason: string, err?: unknown) => void,
  stateSource?: StateSource,
): EvmService {
  const settings = config.execution;
  const size = settings.evmWorkers ?? defaultEvmWorkers();
  const { script, entry } = workerModule(import.meta.url, 'evmWorker');
  const workerData: EvmWorkerData = { entry, datadir: chain.datadir, config };
  const reads = new Map<number, WorkerStateReads>();
  let channel: { close(): void } | undefined;
  if (chain.start !== undefined && stateSource !== undefined) {
    workerData.stateChannel = stateChannelName();
    channel = serveStateChannel(workerData.stateChannel, stateSource, (worker, r) => reads.set(worker, r));
  }
  const pool = new WorkerPool<EvmJob, unknown>({
    script,
    workerData,
    size,
    queueMax: settings.evmQueueMax,
    // A message's items may use all workers but one, so other clients always find one.
    perOwner: Math.max(1, size - 1),
    jobsPerWorker: settings.evmJobsPerWorker,
    youngGenerationMb: settings.evmWorkerYoungGenerationMb,
    watchdogMs: settings.callTimeoutMs + settings.evmWatchdogGraceMs,
    startTimeoutMs: settings.evmWorkerStartTimeoutMs,
    closeGraceMs: settings.evmWorkerCloseMs,
    stuckError: () => new CallTimeoutError(settings.callTimeoutMs),
    decodeError: (e) => decodeError(e, settings.callTimeoutMs),
    onWorkerFailure,
  });
  const close = async (): Promise<void> => {
    await pool.close();
    channel?.close();
  };
  // The workers hold their own handles on the chain's database: they close before it does, also
  // when the chain is closed first.
  chain.beforeClose(close);
  const replayWatchdogMs = config.tracing.replayTimeoutMs;
  const capFactor = BigInt(settings.gasCapFactor);
  const calls = cachedCalls(
    (header, request, overrides, job) =>
      pool.run({ kind: 'call', block: header.hash(), request, state: overrides.state, blockOverrides: overrides.block }, job) as Promise<CallResult>,
    settings.callCacheBytes,
  );
  const estimates = cachedEstimates(
    (header, request, overrides, job) =>
      pool.run({ kind: 'estimateGas', block: header.hash(), request, state: overrides.state, blockOverrides: overrides.block }, job) as Promise<bigint>,
    settings.estimateCacheBytes,
  );

  return {
    calls: {
      gasCap: (header) => header.gasLimit * capFactor,
      call: calls.call,
      cacheStats: calls.stats,
      estimateGas: estimates.run,
      estimateCacheStats: estimates.stats,
      createAccessList: (header, request, overrides = {}, job = {}) =>
        pool.run({ kind: 'createAccessList', block: header.hash(), request, state: overrides.state }, job) as Promise<AccessListResult>,
      simulate: (header, request, job = {}) => pool.run({ kind: 'simulate', block: header.hash(), request }, job) as Promise<SimulatedBlock[]>,
    },
    adHoc: {
      traceCalls: (header, calls, overrides = {}, job = {}) =>
        pool.run({ kind: 'traceCalls', block: header.hash(), calls, state: overrides.state, blockOverrides: overrides.block }, job) as Promise<TracedRun[]>,
      replayDiffs: cachedReplayDiffs(
        (block, only, job) => pool.run({ kind: 'replayDiffs', block: block.hash(), only }, { ...job, watchdogMs: replayWatchdogMs }) as Promise<ReplayedTx[]>,
        config.tracing.replayDiffCacheBytes,
      ),
    },
    debug: debugTraceRunner((job, opts) => pool.run(job, opts), config.tracing),
    witness: witnessRunner((job, opts) => pool.run(job, opts), chain, config.tracing),
    replay: (block, job = {}) => pool.run({ kind: 'replay', block: block.hash() }, { ...job, watchdogMs: replayWatchdogMs }) as Promise<TxCallTree[]>,
    stats: () => pool.stats(),
    stateReads: () => [...reads.values()].reduce((sum, r) => ({ lookups: sum.lookups + r.lookups, remote: sum.remote + r.remote }), { lookups: 0, remote: 0 }),
    warm: () => pool.warm(),
    close,
  };
}
