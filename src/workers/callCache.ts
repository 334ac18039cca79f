import type { BlockHeader } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import { type CacheStats, LruCache } from '../chain/lru.js';
import { hexKey } from '../codec/hex.js';
import type { CallRequest } from '../execution/callArgs.js';
import type { CallOverrides } from '../execution/callEngine.js';
import type { CallResult } from '../execution/callResult.js';
import { JobAbortedError, type JobOptions } from './pool.js';

/**
 * eth_call (and eth_estimateGas) answers by block and call: the dapps and price feeds behind a provider ask the same
 * views of the same block many times (every wallet open on a token page polls `balanceOf`, every
 * feed the same `latestRoundData` at each new head). A call's answer depends only on the block's
 * state, the call and its overrides, and the block is named by its hash, so an answer kept under
 * that hash is right for as long as it is kept: a reorganisation makes a new block, with a new
 * hash, and its calls new entries. Reverts and halts are answers too and are kept; an error (a
 * deadline, a busy node, state an archive from block N could not fetch) is not.
 *
 * Identical calls under way share one run, as the trace cache does: a new head makes every poller
 * ask at once. Entries are bounded by an estimate of their bytes (`execution.callCacheBytes`,
 * `execution.estimateCacheBytes`; 0 turns a cache off). `pending` is never cached: the methods ask
 * with `cache: false`.
 */

/** What a call asks besides the block: the cache's key within a block. */
export type CallJob = JobOptions & {
  /** false: run it whatever the cache holds, and keep nothing (a `pending` call). */
  cache?: boolean;
};

/** A run whose answer depends only on the block's state, the request and the overrides. */
type BlockRun<R> = (header: BlockHeader, request: CallRequest, overrides: CallOverrides, job: JobOptions) => Promise<R>;

/** Answers of one kind of run kept per block and request. */
export interface ResultCache<R> {
  run(header: BlockHeader, request: CallRequest, overrides?: CallOverrides, job?: CallJob): Promise<R>;
  /** Lookups that found an answer, lookups that did not, answers held (a cache of the metrics). */
  stats(): CacheStats;
}

export interface CachedCalls {
  call(header: BlockHeader, request: CallRequest, overrides?: CallOverrides, job?: CallJob): Promise<CallResult>;
  /** Lookups that found an answer, lookups that did not, answers held (the `call_results` cache of the metrics). */
  stats(): CacheStats;
}

/** Estimated bytes of an entry besides its key and return data: the result object, its bigints, the map's slots. */
const ENTRY_OVERHEAD_BYTES = 256;

/** Values as text for the key: bytes in hex, bigints in hex with a mark (so that 1n and '0x1' differ). */
function keyPart(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return bytesToHex(value);
  if (typeof value === 'bigint') return `n${value.toString(16)}`;
  return value;
}

/** The call object's fields of one value each (bytes or a number), with their one-letter tags in the short key. */
const PLAIN_FIELDS = [
  ['from', 'f'],
  ['to', 't'],
  ['gas', 'g'],
  ['gasPrice', 'p'],
  ['maxFeePerGas', 'm'],
  ['maxPriorityFeePerGas', 'r'],
  ['maxFeePerBlobGas', 'b'],
  ['value', 'v'],
  ['nonce', 'n'],
  ['data', 'd'],
  ['chainId', 'c'],
  ['type', 'y'],
] as const satisfies ReadonlyArray<readonly [keyof CallRequest, string]>;
const PLAIN = new Set<string>(PLAIN_FIELDS.map(([field]) => field));

/**
 * The short key of a call made only of plain fields and no overrides (most calls: `to` and `data`):
 * each field present as its tag and its hex. undefined when the call has anything else.
 */
function plainKey(request: CallRequest, overrides: CallOverrides): string | undefined {
  if (overrides.state !== undefined || overrides.block !== undefined) return undefined;
  for (const field in request) {
    if (!PLAIN.has(field) && (request as Record<string, unknown>)[field] !== undefined) return undefined;
  }
  let key = '';
  for (const [field, tag] of PLAIN_FIELDS) {
    const value = request[field];
    if (value === undefined) continue;
    key += `${tag}${typeof value === 'bigint' ? value.toString(16) : hexKey(value)}|`;
  }
  return key;
}

/** Each header's hash as {@link hexKey}, while the header is held: every call at the head asks it. */
const headerKeys = new WeakMap<BlockHeader, string>();
function headerKey(header: BlockHeader): string {
  let key = headerKeys.get(header);
  if (key === undefined) {
    key = hexKey(header.hash());
    headerKeys.set(header, key);
  }
  return key;
}

/**
 * The key of a call at a block: the block's hash, then the call object and both overrides, each
 * field as the decoder gave it (a field left undefined is a field left out). A call of plain
 * fields only has a short key (`#`, then tag and hex per field: no JSON, ~5 % of a cached call's
 * CPU); any other the JSON of all three (`|`): the two forms never meet.
 */
export function callKey(header: BlockHeader, request: CallRequest, overrides: CallOverrides): string {
  const block = headerKey(header);
  const plain = plainKey(request, overrides);
  if (plain !== undefined) return `${block}#${plain}`;
  return `${block}|${JSON.stringify([request, overrides.state ?? null, overrides.block ?? null], keyPart)}`;
}

/**
 * `run` with its answers kept under {@link callKey} within `maxBytes` (0: off); `bytesOf` is an
 * answer's own size beyond its key and the entry's overhead. Identical runs under way share one.
 */
export function cachedByBlock<R>(run: BlockRun<R>, maxBytes: number, bytesOf: (answer: R) => number): ResultCache<R> {
  const results = new LruCache<string, { answer: R; bytes: number }>(Number.MAX_SAFE_INTEGER, {
    maxWeight: Math.max(1, maxBytes),
    weigh: (entry) => entry.bytes,
  });
  const inFlight = new Map<string, Promise<R>>();
  const off = maxBytes <= 0;

  return {
    async run(header, request, overrides = {}, job = {}) {
      // The job goes to the run as it is (its `cache` is read here only): a rest pattern would
      // copy it through V8's slow path on every call, hits included.
      if (off || job.cache === false) return run(header, request, overrides, job);
      const key = callKey(header, request, overrides);
      const hit = results.get(key);
      if (hit) return hit.answer;
      let promise = inFlight.get(key);
      const shared = promise !== undefined;
      if (promise === undefined) {
        promise = run(header, request, overrides, job);
        inFlight.set(key, promise);
        promise.then(
          (answer) => {
            inFlight.delete(key);
            const bytes = key.length * 2 + bytesOf(answer) + ENTRY_OVERHEAD_BYTES;
            if (bytes <= maxBytes / 2) results.set(key, { answer, bytes });
          },
          () => inFlight.delete(key),
        );
      }
      try {
        return await promise;
      } catch (err) {
        // The client whose run it was went away before it started; this one still waits.
        if (shared && err instanceof JobAbortedError && !job.signal?.aborted) return run(header, request, overrides, job);
        throw err;
      }
    },
    stats: () => results.stats(),
  };
}

/** eth_call's answers (reverts and halts included) per block and call. */
export function cachedCalls(run: BlockRun<CallResult>, maxBytes: number): CachedCalls {
  const cache = cachedByBlock(run, maxBytes, (result) => result.returnValue.length);
  return { call: cache.run, stats: cache.stats };
}

/**
 * eth_estimateGas's answers per block and call: a wallet asks again for the same transfer while
 * its user looks at the confirmation screen, and a dapp's page load estimates the same actions for
 * every visitor. An estimate is a search of several EVM runs, the dearest request of a provider's
 * common ten. Errors (a revert at the cap, gas beyond the allowance) are not kept.
 */
export function cachedEstimates(run: BlockRun<bigint>, maxBytes: number): ResultCache<bigint> {
  return cachedByBlock(run, maxBytes, () => 32);
}
