import type { Config } from '../config/settings.js';
import type { AccountOverride, BlockOverrides, CallRequest } from '../execution/callArgs.js';
import type { SimulateRequest } from '../execution/simulate/simulate.js';
import type { TraceCallItem } from '../tracing/adHoc.js';
import type { DebugTraceJob } from './debugJobs.js';
import type { WitnessJob } from './witnessJobs.js';

/** The work an EVM worker does, addressed by block hash (each worker reads the chain itself). */
export type EvmJob =
  | { kind: 'call'; block: Uint8Array; request: CallRequest; state?: AccountOverride[]; blockOverrides?: BlockOverrides }
  | { kind: 'estimateGas'; block: Uint8Array; request: CallRequest; state?: AccountOverride[]; blockOverrides?: BlockOverrides }
  | { kind: 'replay'; block: Uint8Array }
  // ad-hoc Parity tracing (tracing/adHoc.ts): calls in sequence; a block replay with state diffs
  | { kind: 'traceCalls'; block: Uint8Array; calls: TraceCallItem[]; state?: AccountOverride[]; blockOverrides?: BlockOverrides }
  | { kind: 'replayDiffs'; block: Uint8Array; only?: number }
  | DebugTraceJob
  | WitnessJob
  | { kind: 'createAccessList'; block: Uint8Array; request: CallRequest; state?: AccountOverride[] }
  | { kind: 'simulate'; block: Uint8Array; request: SimulateRequest };

/** What the main thread tells a worker when it starts it. */
export interface EvmWorkerData {
  /** The worker module to load (only read by the tsx bootstrap when running from sources). */
  entry: string;
  /** The datadir of the network. */
  datadir: string;
  /** The settings the worker's chain store, caches and call engine read. */
  config: Config;
  /**
   * An archive that starts at block N: the channel on which the serving thread fetches the state
   * the datadir does not hold (`stateChannel.ts`); none: such reads fail, naming the missing node.
   */
  stateChannel?: string;
}
