import { type RateLimiterAbstract, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { KeyPolicy } from './keys.js';
import type { LimitStore } from './limitStore.js';
import { ConcurrentHeavyLimitError, DailyQuotaExceededError, type RateLimitedError, RequestRateExceededError } from './refusals.js';

/**
 * Per-key request limits: a rate with a burst, a daily quota, and a cap on heavy calls in flight.
 * Every JSON-RPC call counts once, batch items included (Infura counts them so). Rates and quotas
 * are counted in this process (fixed windows, as rate-limiter-flexible's memory limiter counts),
 * or with `--redis` in Redis by rate-limiter-flexible, shared by every replica (`limitStore.ts`:
 * and in this process while Redis is away); concurrency is counted in this process.
 *
 * - `rateLimit: { perSecond: N, burst: B }`: at most B calls in any window of B/N seconds, so a
 *   sustained N a second with bursts of up to B. Over it: HTTP 429, -32005
 *   `project ID request rate exceeded`, with `data` {see, current_rps, allowed_rps,
 *   backoff_seconds} and a `Retry-After` header (Infura's shape).
 * - `dailyQuota: Q`: at most Q calls per UTC day. Over it: HTTP 429, -32005
 *   `daily request count exceeded, request rate limited`, backing off until midnight UTC.
 * - `maxConcurrentHeavy: C`: at most C heavy calls in progress for the key: the methods whose
 *   definitions declare `cost: 'heavy'` (`rpc/method.ts`, `MethodCost`: those that run the EVM or
 *   scan many blocks). One more is refused at once with HTTP 429, -32005
 *   `project ID concurrent request limit exceeded` rather than queued without bound.
 *
 * Each refusal is its own error class (`refusals.ts`) whose `reason` says which limit refused.
 */

/** Where the limit errors point clients (`data.see`): the limits section of the operator documentation. */
export const LIMITS_DOC = 'docs/operators.md#limits';

/** The limiters of one key (built when the key's policy is installed). */
export interface KeyLimits {
  /**
   * Counts one call; throws {@link DailyQuotaExceededError} or {@link RequestRateExceededError}
   * when the key is over its quota or rate (counted in Redis: returns a promise, which rejects so).
   */
  admit(): Promise<void> | undefined;
  /** Takes a heavy-call slot, or throws {@link ConcurrentHeavyLimitError}; the returned function gives it back. */
  enterHeavy(): () => void;
}

/** Builds the limiters of every key; a key without limits gets a no-op. */
export function createKeyLimits(policy: KeyPolicy, now: () => number = Date.now, store?: LimitStore): KeyLimits {
  const rate = policy.rateLimit;
  const rateLimiter = rate && limiter(store, { keyPrefix: `rate:${policy.id}`, points: rate.burst, duration: rate.burst / rate.perSecond });
  const quota = policy.dailyQuota;
  const quotaLimiter = quota !== undefined ? limiter(store, { keyPrefix: `day:${policy.id}`, points: quota, duration: 86_400 }) : undefined;
  const maxHeavy = policy.maxConcurrentHeavy;
  let heavy = 0;
  const release = () => {
    heavy--;
  };
  const noop = () => {};

  // The current UTC day, computed again only when it ends (a Date per call shows in the profile).
  let day = '';
  let dayEnds = 0;
  const today = (t: number): string => {
    if (t >= dayEnds) {
      day = new Date(t).toISOString().slice(0, 10);
      dayEnds = Date.parse(`${day}T00:00:00Z`) + 86_400_000;
    }
    return day;
  };

  const quotaRefusal = (res: Counted): RateLimitedError => {
    const backoff = Math.ceil((dayEnds - now()) / 1000);
    return new DailyQuotaExceededError({ see: LIMITS_DOC, current_daily: res.consumedPoints, allowed_daily: quota!, backoff_seconds: backoff }, backoff);
  };
  const rateRefusal = (res: Counted): RateLimitedError => {
    const backoff = Math.max(0.001, res.msBeforeNext / 1000);
    const window = rate!.burst / rate!.perSecond;
    return new RequestRateExceededError(
      { see: LIMITS_DOC, current_rps: round(res.consumedPoints / window), allowed_rps: rate!.perSecond, backoff_seconds: round(backoff) },
      Math.ceil(backoff),
    );
  };
  // The quota first, then the rate. Counted here, that is synchronous: no promise for a call of a
  // limited key (what a refusal throws reaches the caller as the policy's refusals do); in Redis,
  // two promises chained.
  const admit = (): Promise<void> | undefined => {
    const t = now();
    const counted = quotaLimiter === undefined ? undefined : consume(quotaLimiter, today(t), t, quotaRefusal);
    if (rateLimiter === undefined) return counted;
    return counted === undefined ? consume(rateLimiter, 'k', t, rateRefusal) : counted.then(() => consume(rateLimiter, 'k', now(), rateRefusal));
  };

  return {
    admit: rateLimiter === undefined && quotaLimiter === undefined ? () => undefined : admit,
    enterHeavy:
      maxHeavy === undefined
        ? () => noop
        : () => {
            if (heavy >= maxHeavy) {
              throw new ConcurrentHeavyLimitError({ see: LIMITS_DOC, current_concurrent: heavy, allowed_concurrent: maxHeavy, backoff_seconds: 1 }, 1);
            }
            heavy++;
            return release;
          },
  };
}

/** What counting a call found: the calls in the window so far (this one included) and when the window ends. */
interface Counted {
  consumedPoints: number;
  msBeforeNext: number;
}

/**
 * A fixed window of one key's calls in this process, counted as rate-limiter-flexible's memory
 * limiter counts them (a window of `durationMs` opens at the first call after the last one ended;
 * every call in it counts, refused ones too), without its per-call object and promise: this runs
 * for every call of a limited key. `key` starts a new window when it changes (the quota's UTC day).
 */
class WindowCounter {
  private key = '';
  private value = 0;
  private endsAt = 0;
  constructor(
    readonly points: number,
    private readonly durationMs: number,
  ) {}

  /** Counts a call at time `t`: what it found when that is over the limit, else undefined. */
  hit(key: string, t: number): Counted | undefined {
    if (t >= this.endsAt || key !== this.key) {
      this.key = key;
      this.value = 0;
      this.endsAt = t + this.durationMs;
    }
    this.value++;
    return this.value > this.points ? { consumedPoints: this.value, msBeforeNext: this.endsAt - t } : undefined;
  }
}

/** A counter of one key's calls: in this process, or in Redis with the local one for its outages. */
interface Limiter {
  readonly local: WindowCounter;
  readonly shared?: { readonly limiter: RateLimiterAbstract; readonly store: LimitStore };
}

function limiter(store: LimitStore | undefined, opts: { keyPrefix: string; points: number; duration: number }): Limiter {
  const local = new WindowCounter(opts.points, opts.duration * 1000);
  if (store === undefined) return { local };
  // Redis keys expire in whole seconds: a window of 0.2 s (burst 10 at 50/s) is counted in Redis
  // as 1 s and 50 calls, the same rate with a larger burst.
  const seconds = Math.max(1, Math.ceil(opts.duration));
  const shared = new RateLimiterRedis({
    storeClient: store.redis,
    keyPrefix: `${store.prefix}${opts.keyPrefix}`,
    points: Math.round((opts.points * seconds) / opts.duration),
    duration: seconds,
    // No insurance limiter: the fallback is chosen here, so that it is counted and logged.
    rejectIfRedisNotReady: true,
  });
  return { local, shared: { limiter: shared, store } };
}

/** Counts a call at time `t`: in this process synchronously (throwing a refusal), else in Redis (a promise). */
function consume(l: Limiter, key: string, t: number, refusal: (res: Counted) => RateLimitedError): Promise<void> | undefined {
  if (l.shared === undefined) {
    const over = l.local.hit(key, t);
    if (over !== undefined) throw refusal(over);
    return undefined;
  }
  return consumeShared(l, key, t, refusal);
}

/** Counted in Redis, or in this process while Redis is away. */
async function consumeShared(l: Limiter, key: string, t: number, refusal: (res: Counted) => RateLimitedError): Promise<void> {
  const shared = l.shared;
  if (shared?.store.usable()) {
    try {
      await shared.limiter.consume(key);
      shared.store.answered();
      return;
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        shared.store.answered();
        throw refusal(err);
      }
      shared.store.fellBack(err);
    }
  } else if (shared !== undefined) {
    shared.store.fellBack();
  }
  const over = l.local.hit(key, t);
  if (over !== undefined) throw refusal(over);
}

const round = (x: number) => Math.round(x * 1000) / 1000;
