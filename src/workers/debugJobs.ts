import type { Block, BlockHeader } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import { LRUCache } from 'lru-cache';
import type { EthereumChain } from '../chain/open.js';
import type { Config } from '../config/settings.js';
import type { AccountOverride, BlockOverrides, CallRequest } from '../execution/callArgs.js';
import type { CallEngine, CallOverrides } from '../execution/callEngine.js';
import type { StateReader } from '../state/stateReader.js';
import { TraceTimeoutError } from '../tracing/debug/harness.js';
import { type BlockTraceOutput, type TxTraceResult, traceBlock, traceCall } from '../tracing/debug/run.js';
import type { DebugTraceOptions, TracerSpec } from '../tracing/debug/tracer.js';
import { JobAbortedError, type JobOptions } from './pool.js';

/**
 * The EVM workers' debug_trace* jobs: a stored block's transactions (all, or one by index) or a
 * call, traced with one of geth's tracers (`tracing/debug/`).
 */
export type DebugTraceJob =
  | { kind: 'debugTraceBlock'; block: Uint8Array; txIndex: number | undefined; trace: DebugTraceOptions }
  | {
      kind: 'debugTraceCall';
      block: Uint8Array;
      request: CallRequest;
      state?: AccountOverride[];
      blockOverrides?: BlockOverrides;
      trace: DebugTraceOptions;
    };

/** What a worker runs a debug job with. */
export interface DebugJobEnv {
  chain: EthereumChain;
  state: StateReader;
  engine: CallEngine;
}

/** In the worker: runs a debug job. */
export async function runDebugJob(job: DebugTraceJob, env: DebugJobEnv): Promise<unknown> {
  if (job.kind === 'debugTraceBlock') {
    const block = await env.chain.store.blockByHash(job.block);
    if (!block) throw new Error('block to trace not found');
    return traceBlock(env.chain, env.state.db, block, job.txIndex, job.trace);
  }
  const header = await env.chain.store.headerByHash(job.block);
  if (!header) throw new Error('block of the call not found');
  return traceCall(env.engine, env.state.reads, header, job.request, { state: job.state, block: job.blockOverrides }, job.trace);
}

/** What a method asks for: the tracer, and geth's `timeout` in milliseconds when the request set one. */
export interface DebugTraceRequest {
  tracer: TracerSpec;
  timeoutMs: number | undefined;
}

/** debug_trace* as the methods see them. */
export interface DebugTraceRunner {
  /** The traces of a stored block's transactions, or of the one at `txIndex`. */
  traceBlock(block: Block, txIndex: number | undefined, trace: DebugTraceRequest, job?: JobOptions): Promise<TxTraceResult[]>;
  /** The trace of a call on the state after `header`. */
  traceCall(header: BlockHeader, request: CallRequest, overrides: CallOverrides, trace: DebugTraceRequest, job?: JobOptions): Promise<unknown>;
}

/**
 * The runner over the pool, with the `tracing` settings: the default timeout
 * (`debugTimeoutMs`, geth's 5 s), the longest one a request may ask for (`debugMaxTimeoutMs`) and
 * the bound on an answer (`debugMaxResultBytes`). A job's watchdog is the replay watchdog plus the
 * timeout of each traced transaction (geth's timeout is per transaction).
 *
 * A stored block's traces depend on the block and the tracer only, so answers are kept in a cache
 * bounded by their JSON bytes (`debugCacheBytes`), and identical requests under way share one
 * replay, as the trace service does for trace_*: an explorer asking the same transaction again
 * gets it without a replay. Failures (a timeout) are not kept; calls are never cached.
 */
export function debugTraceRunner(run: (job: DebugTraceJob, opts: JobOptions) => Promise<unknown>, settings: Config['tracing']): DebugTraceRunner {
  const options = (trace: DebugTraceRequest): DebugTraceOptions => {
    // geth's deadline has passed before the trace starts: that is its error whatever is cached.
    if (trace.timeoutMs !== undefined && trace.timeoutMs <= 0) throw new TraceTimeoutError();
    return {
      tracer: trace.tracer,
      timeoutMs: Math.min(trace.timeoutMs ?? settings.debugTimeoutMs, settings.debugMaxTimeoutMs),
      maxResultBytes: settings.debugMaxResultBytes,
    };
  };
  const cache = new LRUCache<string, BlockTraceOutput>({ maxSize: settings.debugCacheBytes, sizeCalculation: (o) => Math.max(1, o.bytes) });
  const inFlight = new Map<string, Promise<BlockTraceOutput>>();
  const replay = (block: Block, txIndex: number | undefined, opts: DebugTraceOptions, job: JobOptions): Promise<BlockTraceOutput> => {
    const traced = txIndex === undefined ? block.transactions.length : 1;
    const watchdogMs = settings.replayTimeoutMs + Math.max(0, opts.timeoutMs) * traced;
    return run({ kind: 'debugTraceBlock', block: block.hash(), txIndex, trace: opts }, { ...job, watchdogMs }) as Promise<BlockTraceOutput>;
  };
  return {
    traceBlock: async (block, txIndex, trace, job = {}) => {
      const opts = options(trace);
      const key = `${bytesToHex(block.hash())}:${txIndex ?? '*'}:${JSON.stringify(opts.tracer)}`;
      const hit = cache.get(key);
      if (hit) return hit.results;
      let promise = inFlight.get(key);
      const shared = promise !== undefined;
      if (!promise) {
        promise = replay(block, txIndex, opts, job);
        inFlight.set(key, promise);
        promise.then(
          (out) => {
            inFlight.delete(key);
            if (out.bytes <= settings.debugCacheBytes) cache.set(key, out);
          },
          () => inFlight.delete(key),
        );
      }
      try {
        return (await promise).results;
      } catch (err) {
        // The request that started the replay went away; this one still wants it.
        if (shared && err instanceof JobAbortedError && !job.signal?.aborted) return (await replay(block, txIndex, opts, job)).results;
        throw err;
      }
    },
    traceCall: (header, request, overrides, trace, job = {}) => {
      const opts = options(trace);
      return run(
        { kind: 'debugTraceCall', block: header.hash(), request, state: overrides.state, blockOverrides: overrides.block, trace: opts },
        { ...job, watchdogMs: settings.replayTimeoutMs + Math.max(0, opts.timeoutMs) },
      );
    },
  };
}
