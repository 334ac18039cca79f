import { describe, expect, it, vi } from 'vitest';
import type { KeyPolicy } from './keys.js';
import { createKeyLimits } from './limits.js';
import { ConcurrentHeavyLimitError, DailyQuotaExceededError, RateLimitedError, RequestRateExceededError } from './refusals.js';

const policy = (limits: Partial<KeyPolicy>): KeyPolicy => ({ key: 'k', id: 'k', ...limits });

/** What `fn` throws (or rejects with). */
async function refusal(fn: () => unknown): Promise<RateLimitedError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof RateLimitedError) return err;
    throw err;
  }
  throw new Error('not refused');
}

// Each refusal is typed with its reason; its wire answer is Infura's, byte for byte as before the types.
describe('key limits: typed refusals', () => {
  it('rate: RequestRateExceededError, reason rate', async () => {
    const limits = createKeyLimits(policy({ rateLimit: { perSecond: 2, burst: 2 } }));
    await limits.admit();
    await limits.admit();
    const err = await refusal(() => limits.admit());
    expect(err).toBeInstanceOf(RequestRateExceededError);
    expect([err.reason, err.httpStatus, err.retryAfterSeconds]).toEqual(['rate', 429, 1]);
    const backoff = (err.data as { backoff_seconds: number }).backoff_seconds;
    expect(JSON.stringify(err.toJSON())).toBe(
      `{"code":-32005,"message":"project ID request rate exceeded","data":{"see":"docs/operators.md#limits","current_rps":3,"allowed_rps":2,"backoff_seconds":${backoff}}}`,
    );
  });

  it('quota: DailyQuotaExceededError, reason quota, backing off until midnight UTC', async () => {
    const now = () => Date.parse('2026-01-01T23:59:00Z');
    const limits = createKeyLimits(policy({ dailyQuota: 1 }), now);
    await limits.admit();
    const err = await refusal(() => limits.admit());
    expect(err).toBeInstanceOf(DailyQuotaExceededError);
    expect([err.reason, err.httpStatus, err.retryAfterSeconds]).toEqual(['quota', 429, 60]);
    expect(JSON.stringify(err.toJSON())).toBe(
      '{"code":-32005,"message":"daily request count exceeded, request rate limited","data":{"see":"docs/operators.md#limits","current_daily":2,"allowed_daily":1,"backoff_seconds":60}}',
    );
  });

  it('concurrency: ConcurrentHeavyLimitError, reason concurrency; a released slot is taken again', async () => {
    const limits = createKeyLimits(policy({ maxConcurrentHeavy: 1 }));
    const release = limits.enterHeavy();
    const err = await refusal(() => limits.enterHeavy());
    expect(err).toBeInstanceOf(ConcurrentHeavyLimitError);
    expect([err.reason, err.httpStatus, err.retryAfterSeconds]).toEqual(['concurrency', 429, 1]);
    expect(JSON.stringify(err.toJSON())).toBe(
      '{"code":-32005,"message":"project ID concurrent request limit exceeded","data":{"see":"docs/operators.md#limits","current_concurrent":1,"allowed_concurrent":1,"backoff_seconds":1}}',
    );
    release();
    expect(typeof limits.enterHeavy()).toBe('function');
  });
});

// The counters are this module's own (no object or promise a call); they must count exactly as
// rate-limiter-flexible's memory limiter, which counted them before, over any timing of calls.
describe('key limits: counted as rate-limiter-flexible counts', () => {
  it('the same refusals, counts and back-offs as RateLimiterMemory over 2,000 calls at random times', async () => {
    const { RateLimiterMemory, RateLimiterRes } = await import('rate-limiter-flexible');
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    try {
      let seed = 42;
      const next = () => {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        return seed / 0x7fffffff;
      };
      let t = Date.parse('2026-03-01T12:00:00Z');
      vi.setSystemTime(t);
      const rate = { perSecond: 4, burst: 6 };
      const ours = createKeyLimits(policy({ rateLimit: rate }), () => t);
      const theirs = new RateLimiterMemory({ keyPrefix: 'rate:k', points: rate.burst, duration: rate.burst / rate.perSecond });
      let refused = 0;
      for (let i = 0; i < 2000; i++) {
        // steps of 50 ms: calls land exactly where a 1.5 s window ends too
        t += 50 * Math.floor(next() < 0.8 ? next() * 3 : next() * 60);
        vi.setSystemTime(t);
        let expected: string | undefined;
        try {
          await theirs.consume('k');
        } catch (res) {
          if (!(res instanceof RateLimiterRes)) throw res;
          expected = `${res.consumedPoints / 1.5} ${Math.max(0.001, res.msBeforeNext / 1000)}`;
        }
        let got: string | undefined;
        try {
          await ours.admit();
        } catch (err) {
          const data = (err as RequestRateExceededError).data as { current_rps: number; backoff_seconds: number };
          got = `${data.current_rps} ${data.backoff_seconds}`;
        }
        if (expected !== undefined) refused++;
        expect(got === undefined ? undefined : got, `call ${i} at +${t}`).toBe(
          expected === undefined
            ? undefined
            : expected
                .split(' ')
                .map((x) => Math.round(Number(x) * 1000) / 1000)
                .join(' '),
        );
      }
      expect(refused).toBeGreaterThan(100);
    } finally {
      vi.useRealTimers();
    }
  });
});
