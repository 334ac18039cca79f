import { parentPort, workerData } from 'node:worker_threads';
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
import { setThreadNice } from './threads.js';

/**
 * An EVM worker: opens the network's database itself (LevelDB shared between the threads of the
 * process), keeps its own chain store, state caches and pooled EVMs, and runs the jobs the pool
 * sends it one at a time (`jobLoop.ts`): eth_call, eth_estimateGas (the whole search), block replays for
 * tracing and ad-hoc Parity tracing (traced call sequences, replays with state diffs). The deadline of a call starts when the job starts here.
 */

const data = workerData as EvmWorkerData;
setThreadNice(data.config.execution.evmWorkerNice);
const chain = await openChain(data.datadir, data.config.caches);
const state = new StateReader(chain.level, data.config.caches);
const engine = createCallEngine({
  store: chain.store,
  common: chain.common,
  reads: state.reads,
  settings: data.config.execution,
  depositContract: depositContractOf(chain.genesis.config),
});

async function run(job: EvmJob): Promise<unknown> {
  if (job.kind === 'debugTraceBlock' || job.kind === 'debugTraceCall') return runDebugJob(job, { chain, state, engine });
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

serveJobs(parentPort!, (job) => run(job as EvmJob), encodeError);
