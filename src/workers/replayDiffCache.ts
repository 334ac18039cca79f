import type { Block } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import { LRUCache } from 'lru-cache';
import type { ReplayedTx } from '../tracing/adHoc.js';
import { estimateTraceBytes } from '../tracing/replay.js';
import { JobAbortedError, type JobOptions } from './pool.js';

/**
 * The state-diff replays of stored blocks (trace_replayTransaction and
 * trace_replayBlockTransactions with `stateDiff`), kept as the trace service keeps trace_block's
 * trees: a stored block's replay depends on the block alone, so answers are cached, bounded by an
 * estimate of their bytes (`tracing.replayDiffCacheBytes`), and identical requests under way share
 * one replay. Without it every request replayed the block (58 ms p50 for a recent bench block,
 * against anvil's 2.75 ms, which keeps its traces). Failures are not kept.
 */

/** Estimated bytes of one changed account or slot of a diff (object, bigints, 32-byte words). */
const DIFF_ENTRY_BYTES = 200;

function estimateBytes(txs: readonly ReplayedTx[]): number {
  let total = estimateTraceBytes(txs.map((t) => t.tree));
  for (const t of txs) for (const account of t.diff ?? []) total += DIFF_ENTRY_BYTES * (1 + account.storage.length);
  return Math.max(1, total);
}

export function cachedReplayDiffs(
  replay: (block: Block, only: number | undefined, job: JobOptions) => Promise<ReplayedTx[]>,
  maxBytes: number,
): (block: Block, only: number | undefined, job?: JobOptions) => Promise<ReplayedTx[]> {
  const cache = new LRUCache<string, { txs: ReplayedTx[]; bytes: number }>({ maxSize: Math.max(1, maxBytes), sizeCalculation: (e) => e.bytes });
  const inFlight = new Map<string, Promise<ReplayedTx[]>>();
  return async (block, only, job = {}) => {
    const key = `${bytesToHex(block.hash())}:${only ?? '*'}`;
    const hit = cache.get(key) ?? (only !== undefined ? cache.get(`${bytesToHex(block.hash())}:*`) : undefined);
    if (hit) return hit.txs;
    let promise = inFlight.get(key);
    const shared = promise !== undefined;
    if (!promise) {
      promise = replay(block, only, job);
      inFlight.set(key, promise);
      promise.then(
        (txs) => {
          inFlight.delete(key);
          const bytes = estimateBytes(txs);
          if (bytes <= maxBytes) cache.set(key, { txs, bytes });
        },
        () => inFlight.delete(key),
      );
    }
    try {
      return await promise;
    } catch (err) {
      // The request that started the replay went away; this one still wants it.
      if (shared && err instanceof JobAbortedError && !job.signal?.aborted) return replay(block, only, job);
      throw err;
    }
  };
}
