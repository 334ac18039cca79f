import { Redis } from 'ioredis';

/**
 * Where per-key rates and quotas are counted when several replicas serve the same keys: one Redis
 * (`--redis redis://host:6379/0`), so a key limited to R calls a second gets R over all replicas
 * behind the load balancer, not R on each. The counters are rate-limiter-flexible's Redis store
 * (one key per limited API key and window, under `redis.keyPrefix`, each with the window as its
 * expiry, so nothing is left behind).
 *
 * Redis unreachable (down, restarting, a network split, slower than `redis.commandTimeoutMs`):
 * the node keeps serving and counts each key in this process instead, with the key's whole limit
 * (fail-open: during an outage a key may get up to its limit on every replica). One warning line
 * when that starts and one line when Redis answers again; `tracenode_redis_up` and
 * `tracenode_limit_local_fallback_total` tell the operator. ioredis reconnects on its own, every
 * 100 ms growing to `redis.reconnectMaxMs`; commands are never queued while it is away.
 */

export interface LimitStoreSettings {
  keyPrefix: string;
  commandTimeoutMs: number;
  connectTimeoutMs: number;
  reconnectMaxMs: number;
}

export interface LimitStoreLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** The shared counters' connection, as the limiters use it. */
export interface LimitStore {
  readonly redis: Redis;
  /** Prefix of every key this node writes. */
  readonly prefix: string;
  /** Whether Redis is connected now (else the limiters count locally without trying it). */
  usable(): boolean;
  /** A command failed (or Redis is away): the call was counted locally. */
  fellBack(err?: unknown): void;
  /** A command was answered: ends a reported outage. */
  answered(): void;
  /** Whether Redis is connected, for /metrics. */
  readonly up: () => boolean;
  /** Calls counted locally because Redis was away, since start. */
  readonly fallbacks: () => number;
  close(): Promise<void>;
}

/** `redis://user:secret@host:6379/2` → `redis://host:6379`: what logs show (never a password). */
export function shownRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(not a URL)';
  }
}

/**
 * A Redis connection under the `redis.*` settings: a command while disconnected fails at once
 * (the caller falls back or answers an error) instead of waiting in a queue; reconnection attempts
 * 100 ms apart, growing to `reconnectMaxMs`. The limiters and the shared filters each use one.
 */
export function connectRedis(url: string, settings: LimitStoreSettings): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: settings.commandTimeoutMs,
    connectTimeout: settings.connectTimeoutMs,
    retryStrategy: (times) => Math.min(100 * times, settings.reconnectMaxMs),
  });
}

export function connectLimitStore(url: string, settings: LimitStoreSettings, log: LimitStoreLog): LimitStore {
  const shown = shownRedisUrl(url);
  const redis = connectRedis(url, settings);
  // Reported state: down from a failed connection or command until Redis answers again.
  let down = false;
  let fallbacks = 0;
  const lost = (reason: string) => {
    if (!down) log.warn({ redis: shown, reason }, 'redis: unreachable; per-key limits are counted in this process until it returns');
    down = true;
  };
  const back = () => {
    if (down) log.info({ redis: shown }, 'redis: reachable again; per-key limits are shared again');
    down = false;
  };
  redis.on('ready', back);
  // ioredis reports every failed reconnection: one line per outage, not one per attempt.
  redis.on('error', (err: Error) => lost(err.message));
  redis.on('close', () => lost('connection closed'));

  return {
    redis,
    prefix: settings.keyPrefix,
    usable: () => redis.status === 'ready',
    fellBack(err) {
      fallbacks++;
      lost(err instanceof Error ? err.message : err === undefined ? 'not connected' : String(err));
    },
    answered: back,
    up: () => redis.status === 'ready' && !down,
    fallbacks: () => fallbacks,
    async close() {
      redis.removeAllListeners('error');
      redis.removeAllListeners('close');
      redis.on('error', () => {});
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
