import type { Config } from '../config/settings.js';
import type { AccountOverride, BlockOverrides, CallRequest } from '../execution/callArgs.js';
import type { SimulateRequest } from '../execution/simulate.js';

/** The work an EVM worker does, addressed by block hash (each worker reads the chain itself). */
export type EvmJob =
  | { kind: 'call'; block: Uint8Array; request: CallRequest; state?: AccountOverride[]; blockOverrides?: BlockOverrides }
  | { kind: 'estimateGas'; block: Uint8Array; request: CallRequest; state?: AccountOverride[]; blockOverrides?: BlockOverrides }
  | { kind: 'replay'; block: Uint8Array }
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
}
