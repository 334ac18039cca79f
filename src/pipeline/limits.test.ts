import { describe, expect, it } from 'vitest';
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
