/**
 * The shape of a bench run's results: what `runBench` returns, what bench/results/<date>.json
 * holds and what `--render` reads back. Also the names every part of the bench shares: the
 * servers measured, the transports, the networks of tracenode a case can ask.
 */

export { type Network, round, SERVERS, type ServerName, type Transport } from './names.js';

import type { CallCosts } from './callCosts.js';
import type { EvmPoolReport } from './evmPool.js';
import type { FollowReport } from './follow.js';
import type { FollowFromReport } from './followFrom.js';
import type { HeavyLoopFloor } from './heavyLoopFloor.js';
import type { MemoryChecks } from './memoryChecks.js';
import type { Network, ServerName } from './names.js';
import type { PipelineCost } from './pipelineCosts.js';
import type { RealBlocksReport } from './realBlocks.js';
import type { ReplicasReport } from './replicas.js';
import type { SubscriptionsReport } from './subscriptions.js';
import type { TrafficMixReport } from './trafficMix.js';
import type { TransferFloor } from './transferFloor.js';
import type { WaitRow } from './walletWait.js';
import type { LoadResult } from './wsLoad.js';

/** The one-connection HTTP run: unloaded latency, ms. */
export interface ProbeResult {
  requests: number;
  p50: number;
  p99: number;
}

/** One server's figures in one case. */
export interface ServerRun {
  http?: LoadResult;
  ws?: LoadResult;
  /** One connection, HTTP: unloaded latency. */
  c1?: ProbeResult;
  /** Size of the answer, bytes. */
  answerBytes?: number;
  /** What the answer was checked against during the run. */
  checkedAgainst?: string;
}

/** One case's request, its cross-check, its problems and every server's figures. */
export interface CaseResult {
  name: string;
  issue: number;
  network: Network;
  request: string;
  servers: Partial<Record<ServerName, ServerRun>>;
  /** tracenode's answer vs anvil's: 'equal', 'equal after …', 'differs: …', or why not compared. */
  crossCheck: string;
  /** Problems found before the run (an answer that fails its sanity check, transports that disagree). */
  problems: string[];
  note?: string;
}

/** Import speed of one importer over the bench chain. */
export interface ImportSpeed {
  blocks: number;
  seconds: number;
  blocksPerSecond: number;
  mgasPerSecond: number;
}

/** tracenode's import next to raw @ethereumjs/vm on the same blocks, measured when the cache is built. */
export interface ImportFigures {
  measuredAt: string;
  tracenode: ImportSpeed;
  raw: ImportSpeed & { gasUsed: number };
  ratio: { blocks: number; mgas: number };
}

/** The table bench/starknetEvents.ts prints, parsed. */
export interface StarknetBenchResult {
  args: string[];
  rows: Array<{ query: string; events: string; medianMs: number; p99Ms: number; note: string }>;
  importLine?: string;
  seconds: number;
}

/** A run: settings, machine, chain, import, memory, cases, the Starknet bench and the targets. */
export interface BenchReport {
  date: string;
  mode: 'full' | 'quick';
  settings: { blocks: number; durationS: number; warmupS: number; probeS: number; connections: number; only: string[] };
  machine: {
    cores: number;
    cpu: string;
    memoryGiB: number;
    node: string;
    anvil: string;
    os: string;
    loadAverage: { start: number[]; end: number[] };
    commit?: string;
  };
  chain: {
    key: string;
    head: number;
    headHash: string;
    transactions: number;
    cached: boolean;
    anvilBoot: string;
    rareAddress: string;
    rareBlocks: number[];
    heaviestBlock: number;
    heaviestBlockGasUsed: number;
    generateSeconds: number;
  };
  import?: ImportFigures;
  memory: { restMiB?: number; idleSockets?: number; idleSocketsOpen?: number; idleMiB?: number; underLoadMiB?: number };
  cases: CaseResult[];
  starknetBench?: StarknetBenchResult;
  /** What each operator control adds to a message, in process (bench/pipelineCosts.ts). */
  pipelineCosts?: PipelineCost[];
  /** The EVM worker pool under load (bench/evmPool.ts). */
  evmPool?: EvmPoolReport;
  /** Memory under a client that never reads and a batch of proofs (bench/memoryChecks.ts). */
  memoryChecks?: MemoryChecks;
  /** Following the bench's anvil (bench/follow.ts). */
  follow?: FollowReport;
  /** An archive from block N beside anvil (bench/followFrom.ts). */
  followFrom?: FollowFromReport;
  /** Real public blocks from their witnesses and from proofs (bench/realBlocks.ts). */
  realBlocks?: RealBlocksReport;
  /** A wallet's send and wait, through tracenode and straight to anvil (bench/walletWait.ts). */
  walletWait?: WaitRow[];
  /** A provider's traffic mix on tracenode (cache off and on) and anvil (bench/trafficMix.ts, #39). */
  trafficMix?: TrafficMixReport;
  /** The heavy loop's bytecode on plain @ethereumjs/evm (bench/heavyLoopFloor.ts). */
  heavyLoopFloor?: HeavyLoopFloor;
  /** The ERC-20 transfer run once by plain @ethereumjs/evm (bench/transferFloor.ts). */
  transferFloor?: TransferFloor;
  /** The view call in process, its set-up, and through the EVM workers (bench/callCosts.ts): what bounds issue 39's eth_call targets. */
  callCosts?: CallCosts;
  /** WebSocket subscribers of a following node (bench/subscriptions.ts). */
  subscriptions?: SubscriptionsReport;
  /** Several replicas behind HAProxy, limits in Redis (bench/replicas.ts). */
  replicas?: ReplicasReport;
  targets: Target[];
  seconds: number;
}

/** One performance target of an issue and its verdict (`met: null`: information or not run). */
export interface Target {
  issue: number;
  target: string;
  measured: string;
  met: boolean | null;
  note?: string;
}

/** Wrong or missing answers of a run: connection errors, timeouts, mismatches, non-2xx. */
export function badCount(r: LoadResult | undefined): number {
  return r ? r.errors + r.timeouts + r.mismatches + r.non2xx : 0;
}
