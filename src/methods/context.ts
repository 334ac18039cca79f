import type { EthereumChain } from '../chain/open.js';
import { DEFAULT_MAX_TRACE_FILTER_BLOCKS, MAX_TRACE_FILTER_RESULTS } from '../config/limits.js';
import { type CallEngine, createCallEngine } from '../execution/callEngine.js';
import { StateReader } from '../state/stateReader.js';
import { createTraceService, type TraceService } from '../tracing/replay.js';

/** Limits of the trace methods (defaults in `config/limits.ts`). */
export interface TraceLimits {
  /** Most traces in one trace_filter answer. */
  maxFilterResults: number;
  /** Widest trace_filter block range, or undefined for none. */
  maxFilterBlocks: bigint | undefined;
}

/** What Ethereum method handlers may use. Built once per network by the CLI. */
export interface EthContext {
  chain: EthereumChain;
  /** Reads archive state at any block. */
  state: StateReader;
  /** Runs eth_call / eth_estimateGas on a pooled EVM over any block's state. */
  execution: CallEngine;
  /** Replays blocks with the tracer (cached, under a concurrency limit). */
  tracer: TraceService;
  traceLimits: TraceLimits;
  /** `web3_clientVersion` answer. */
  clientVersion: string;
}

/** Builds the context of an opened chain. */
export async function createEthContext(chain: EthereumChain, clientVersion: string, opts: { traceLimits?: Partial<TraceLimits> } = {}): Promise<EthContext> {
  const state = new StateReader(chain.level);
  return {
    chain,
    state,
    execution: createCallEngine({ store: chain.store, common: chain.common, reads: state.reads }),
    tracer: createTraceService(chain, { stateDb: state.db }),
    traceLimits: {
      maxFilterResults: opts.traceLimits?.maxFilterResults ?? MAX_TRACE_FILTER_RESULTS,
      maxFilterBlocks: opts.traceLimits?.maxFilterBlocks ?? DEFAULT_MAX_TRACE_FILTER_BLOCKS,
    },
    clientVersion,
  };
}
