import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Config, defaultConfig } from '../../src/config/settings.js';
import { createLogger } from '../../src/log/logger.js';
import { parseKeysFile } from '../../src/pipeline/keys.js';
import { describeWithRedis, startRedis, type TestRedis } from '../helpers/redis.js';
import { rawHttp, type StartedServer, startServer } from '../helpers/rpcClient.js';
import { toyNetwork } from '../helpers/toyMethods.js';
import { until } from '../helpers/until.js';

/**
 * Per-key limits counted in a real Redis (`--redis`) by two node processes' worth of servers, as
 * two replicas behind a load balancer count them: a key allowed 10 calls in its window gets 10
 * over both, not 10 on each. Redis killed: both keep answering, each counting the key itself,
 * with one log line and the metrics saying so; Redis back: shared again. The Redis password in
 * the URL never reaches the logs.
 */

const PASSWORD = 'redis-s3cret-pw';
// A window of 10 s (burst 10 at 1 a second): the calls of a test all fall in the key's first window.
const KEYS = parseKeysFile(
  `keys:\n  - key: shared-key\n    id: shared\n    rateLimit: { perSecond: 1, burst: 10 }\n  - key: other-key\n    id: other\n    rateLimit: { perSecond: 1, burst: 10 }\n`,
  'keys.yaml',
);

let redis: TestRedis;
const servers: StartedServer[] = [];
const lines: string[] = [];

function configWith(url: string): Config {
  const base = defaultConfig();
  // A generous command timeout: on a loaded 2-core test machine a Redis answer can take 100 ms,
  // and a call counted locally would change the exact counts asserted here.
  return { ...base, server: { ...base.server, redis: url }, redis: { ...base.redis, reconnectMaxMs: 200, commandTimeoutMs: 2000 } };
}

/** `n` calls of `key`, alternating between the servers; how many were answered and how many refused for the rate. */
async function load(key: string, n: number): Promise<{ ok: number; limited: number; other: string[] }> {
  let ok = 0;
  let limited = 0;
  const other: string[] = [];
  for (let i = 0; i < n; i++) {
    const s = servers[i % servers.length];
    const r = await rawHttp(`${s.url}/v3/${key}`, {
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"test_echo","params":[1]}',
    });
    const body = JSON.parse(r.text);
    if (r.status === 200 && body.result !== undefined) ok++;
    else if (r.status === 429 && body.error?.message === 'project ID request rate exceeded') limited++;
    else other.push(`${r.status} ${r.text}`);
  }
  return { ok, limited, other };
}

async function metric(name: string): Promise<number> {
  const text = (await rawHttp(`${servers[0].url}/metrics`, { method: 'GET' })).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? Number.NaN : Number(line.split(' ')[1]);
}

describeWithRedis('the shared limits test')('per-key limits shared in Redis', () => {
  beforeAll(async () => {
    redis = await startRedis(PASSWORD);
    const logger = createLogger({ level: 'info', destination: { write: (l: string) => lines.push(l) } });
    for (let i = 0; i < 2; i++) {
      servers.push(await startServer({ networks: [toyNetwork()], policies: KEYS, config: configWith(redis.url), logger }));
    }
    // Both connected before the first call, so no call is counted locally.
    await until(
      'redis connected',
      () => metric('tracenode_redis_up'),
      (v) => v === 1,
      10_000,
    );
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    await redis?.stop();
  });

  it('two servers share one key’s 10 calls: 10 answered over both, 20 refused; a second key is counted apart', async () => {
    expect(await load('shared-key', 30)).toEqual({ ok: 10, limited: 20, other: [] });
    expect(await load('other-key', 12)).toEqual({ ok: 10, limited: 2, other: [] });
    expect(await metric('tracenode_limit_local_fallback_total')).toBe(0);
  });

  it('Redis killed: both keep answering, each counting the key alone (10 each); one log line; Redis back: shared again', async () => {
    await redis.stop();
    await until(
      'redis down seen',
      () => metric('tracenode_redis_up'),
      (v) => v === 0,
      10_000,
    );
    // Each server's local count of the key starts empty: 10 on each, 20 in all.
    expect(await load('shared-key', 30)).toEqual({ ok: 20, limited: 10, other: [] });
    expect(await metric('tracenode_limit_local_fallback_total')).toBe(15);
    const down = lines.filter((l) => l.includes('redis: unreachable'));
    expect(down.length).toBe(2); // one line per server for the whole outage, however many reconnection attempts
    await redis.start();
    await until(
      'redis back',
      () => metric('tracenode_redis_up'),
      (v) => v === 1,
      10_000,
    );
    await until(
      'both back',
      async () => lines.filter((l) => l.includes('redis: reachable again')).length,
      (n) => n === 2,
      10_000,
    );
    // The restarted Redis holds no counts: the key's window starts again, shared.
    expect(await load('other-key', 30)).toEqual({ ok: 10, limited: 20, other: [] });
  });

  it('the Redis password never reaches the logs; the address does', () => {
    const all = lines.join('\n');
    expect(all).not.toContain(PASSWORD);
    expect(all).toContain(`"redis":"redis://127.0.0.1:${redis.port}"`);
  });
});
