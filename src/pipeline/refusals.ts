import { LimitExceededError } from '../rpc/errors.js';
import type { RefusalReason } from './metrics.js';

/**
 * The refusals of a key's limits (`limits.ts`), one class each, with Infura's codes, texts and
 * `data` shapes (docs/operators.md#limits): HTTP 429, -32005, and the seconds to wait for the
 * `Retry-After` header. Each says why in `reason`, the label of `tracenode_refusals_total` and of
 * the access line: the pipeline reads that field, never the message.
 */

/** Why a key's limit refused a call: its rate, its daily quota, or its heavy calls in flight. */
export type LimitReason = Extract<RefusalReason, 'rate' | 'quota' | 'concurrency'>;

/** A refusal by one of a key's limits, with the seconds a client should wait (Retry-After). */
export abstract class RateLimitedError extends LimitExceededError {
  abstract readonly reason: LimitReason;
  constructor(
    message: string,
    data: object,
    readonly retryAfterSeconds: number,
  ) {
    super(message, data, 429);
  }
}

/** `data` of {@link RequestRateExceededError}. */
export interface RateRefusalData {
  readonly see: string;
  readonly current_rps: number;
  readonly allowed_rps: number;
  readonly backoff_seconds: number;
}

/** Over the key's `rateLimit`: -32005 `project ID request rate exceeded` (Infura's text). */
export class RequestRateExceededError extends RateLimitedError {
  override readonly name: string = 'RequestRateExceededError';
  readonly reason = 'rate';
  constructor(data: RateRefusalData, retryAfterSeconds: number) {
    super('project ID request rate exceeded', data, retryAfterSeconds);
  }
}

/** `data` of {@link DailyQuotaExceededError}. */
export interface QuotaRefusalData {
  readonly see: string;
  readonly current_daily: number;
  readonly allowed_daily: number;
  readonly backoff_seconds: number;
}

/** Over the key's `dailyQuota`: -32005 `daily request count exceeded, request rate limited` until midnight UTC. */
export class DailyQuotaExceededError extends RateLimitedError {
  override readonly name: string = 'DailyQuotaExceededError';
  readonly reason = 'quota';
  constructor(data: QuotaRefusalData, retryAfterSeconds: number) {
    super('daily request count exceeded, request rate limited', data, retryAfterSeconds);
  }
}

/** `data` of {@link ConcurrentHeavyLimitError}. */
export interface ConcurrencyRefusalData {
  readonly see: string;
  readonly current_concurrent: number;
  readonly allowed_concurrent: number;
  readonly backoff_seconds: number;
}

/** A heavy call past the key's `maxConcurrentHeavy`: -32005 `project ID concurrent request limit exceeded`. */
export class ConcurrentHeavyLimitError extends RateLimitedError {
  override readonly name: string = 'ConcurrentHeavyLimitError';
  readonly reason = 'concurrency';
  constructor(data: ConcurrencyRefusalData, retryAfterSeconds: number) {
    super('project ID concurrent request limit exceeded', data, retryAfterSeconds);
  }
}
