import { parentPort, workerData } from 'node:worker_threads';
import { type ArchiveStart, checkArchiveStart } from '../chain/archiveStart.js';
import { openChain } from '../chain/open.js';
import { createCallEngine } from '../execution/callEngine.js';
import { depositContractOf } from '../execution/simulate/systemCalls.js';
import { StateReader } from '../state/stateReader.js';
import { replayWithDiffs, traceCalls } from '../tracing/adHoc.js';
import { replayBlock } from '../tracing/replay.js';
import { runDebugJob } from './debugJobs.js';
import { encodeError } from './errors.js';
import { serveJobs } from './jobLoop.js';
import type { EvmJob, EvmWorkerData } from './jobs.js';
import { ChannelStateSource } from './stateChannel.js';
import { setThreadNice } from './threads.js';
import { runWitnessJob } from './witnessJobs.js';

/**
 * An EVM worker: opens the network's database itself (LevelDB shared between the threads of the
 * process), keeps its own chain store, state caches and pooled EVMs, and runs the jobs the pool
 * sends it one at a time (`jobLoop.ts`): eth_call, eth_estimateGas (the whole search), block replays for
 * tracing and ad-hoc Parity tracing (traced call sequences, replays with state diffs) and block witnesses (debug_executionWitness). The deadline of a call starts when the job starts here.
 */

const data = workerData as EvmWorkerData;
setThreadNice(data.config.execution.evmWorkerNice);
const chain = await openChain(data.datadir, data.config.caches);
// An archive from block N fetches what it does not hold through the serving thread.
const source = chain.start && data.stateChannel !== undefined ? new ChannelStateSource(data.stateChannel) : undefined;
const state = new StateReader(chain.level, data.config.caches, chain.start ? { source } : undefined);
source?.reportReads(() => {
  const { hits, misses } = state.reads.cacheStats();
  const remote = state.reads.remote?.stats();
  return { lookups: hits + misses, remote: remote ? remote.account + remote.storage + remote.code + remote.proof : 0 };
});
const engine = createCallEngine({
  store: chain.store,
  common: chain.common,
  reads: state.reads,
  settings: data.config.execution,
  depositContract: depositContractOf(chain.genesis.config),
});

/** Replays run a block on its parent's state: in an archive from block N, none of block N or below. */
const REPLAYS: ReadonlySet<EvmJob['kind']> = new Set(['replay', 'replayDiffs', 'debugTraceBlock', 'executionWitness']);

async function checkReplayable(job: EvmJob, start: ArchiveStart): Promise<void> {
  if (!REPLAYS.has(job.kind)) return;
  const header = await chain.store.headerByHash(job.block);
  if (header) checkArchiveStart(start, header.number - 1n, 'state');
}

async function run(job: EvmJob): Promise<unknown> {
  if (chain.start !== undefined) await checkReplayable(job, chain.start);
  if (job.kind === 'debugTraceBlock' || job.kind === 'debugTraceCall') return runDebugJob(job, { chain, state, engine });
  if (job.kind === 'executionWitness') return runWitnessJob(job, { chain, state });
  if (job.kind === 'replay') {
    const block = await chain.store.blockByHash(job.block);
    if (!block) throw new Error('block to replay not found');
    return replayBlock(chain, state.db, block);
  }
  if (job.kind === 'replayDiffs') {
    const block = await chain.store.blockByHash(job.block);
    if (!block) throw new Error('block to replay not found');
    return replayWithDiffs(chain, state.db, block, job.only);
  }
  const header = await chain.store.headerByHash(job.block);
  if (!header) throw new Error('block of the call not found');
  if (job.kind === 'simulate') return engine.simulate(header, job.request, state.db);
  if (job.kind === 'createAccessList') return engine.createAccessList(header, job.request, { state: job.state });
  const overrides = { state: job.state, block: job.blockOverrides };
  if (job.kind === 'traceCalls') return traceCalls(engine, header, job.calls, overrides);
  return job.kind === 'call' ? engine.call(header, job.request, overrides) : engine.estimateGas(header, job.request, overrides);
}

// Closed by the pool: the worker releases its database handle itself before its thread ends.
serveJobs(
  parentPort!,
  (job) => run(job as EvmJob),
  encodeError,
  () => chain.close(),
);
