/**
 * What a bench run can be asked (`BenchOptions`, filled from the command line by bench/cli.ts or
 * passed by a test) and the sizes of a full run and of `--quick`.
 */

export interface BenchOptions {
  /** Run only cases whose name contains one of these substrings (case-insensitive). */
  only?: string[];
  /** Small chain, short runs. */
  quick?: boolean;
  /** Chain height of the bench chain. */
  blocks?: number;
  /** Measured seconds per case, server and transport. */
  durationS?: number;
  /** Warm-up seconds before each measured run. */
  warmupS?: number;
  /** Seconds of the one-connection latency run. */
  probeS?: number;
  /** Concurrent connections (HTTP) and sockets (WebSocket). */
  connections?: number;
  /** Seconds of eth_blockNumber load on each server and transport before the first case (JIT, caches). */
  globalWarmupS?: number;
  /** Idle WebSocket connections opened for the memory figure (0: skip). */
  idleSockets?: number;
  /** Re-import even when the cache has the datadir (and re-measure import speed). */
  fresh?: boolean;
  /** Write bench/results/<date>.json. */
  writeResults?: boolean;
  /** Write BENCHMARKS.md (default: only for a full run without --only). */
  writeMarkdown?: boolean;
  /** Where the cache lives (default bench/.cache). */
  cacheDir?: string;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
}

/** Default sizes of a full run and of --quick. */
export const DEFAULTS = {
  full: { blocks: 10000, durationS: 4, warmupS: 1, probeS: 1.5, connections: 10, idleSockets: 1000, globalWarmupS: 2, starknet: ['--runs', '100'] },
  quick: { blocks: 40, durationS: 2, warmupS: 0.5, probeS: 0.5, connections: 10, idleSockets: 1000, globalWarmupS: 0.5, starknet: ['--quick', '--runs', '50'] },
} as const;
