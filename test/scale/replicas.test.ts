import { readFileSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { connect, createServer as createNetServer, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type BareAnvil, startBareAnvil } from '../../scripts/anvil/bareAnvil.js';
import { TICK_INITCODE, TICK_TOPIC } from '../../scripts/anvil/tickContract.js';
import { type HaproxyProcess, startHaproxyListening } from '../../scripts/lib/services.js';
import { initDatadir } from '../../src/import/init.js';
import { tempDir } from '../helpers/chains.js';
import { runCli, type ServeCli, startServeCli } from '../helpers/cli.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { describeWithProgram, onPath } from '../helpers/programs.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { rawHttp } from '../helpers/rpcClient.js';
import { testConfig } from '../helpers/testConfig.js';
import { paced, until } from '../helpers/until.js';

/**
 * Scale-out as an operator deploys it, every part real and on 127.0.0.1: one anvil as the
 * upstream, one Redis, three `tracenode serve --follow --redis` replicas, and HAProxy with
 * deploy/haproxy.cfg (the file shipped for docker-compose and bare metal) checking /health.
 * Replica 1 starts from genesis; replicas 2 and 3 from `tracenode snapshot` copies of replica 1
 * taken while it serves under load and follows anvil mining.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const HAPROXY = onPath('haproxy');
const withFoundry = describeWithFoundry(['anvil'], 'the replicas test');
const describe = HAPROXY === undefined ? describeWithProgram(undefined, 'haproxy', 'the replicas test') : withFoundry;
const tmp = tempDir('tracenode-replicas-');
const KEY = 'limited-key';
const OPEN = 'open-key';
/** The limited key's rate: 50 calls a second over all replicas (windows of 1 s). */
const RATE = 50;

let anvil: BareAnvil;
/** Replica 2's link to anvil. */
let link: CuttableProxy;
let ticker: string;
let redis: TestRedis;
const replicas: ServeCli[] = [];
let haproxy: HaproxyProcess | undefined;
let lb = '';
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

async function post(
  base: string,
  key: string,
  method: string,
  params: unknown[] = [],
): Promise<{ status: number; body: { result?: unknown; error?: { message: string } } }> {
  const r = await rawHttp(`${base}/v3/${key}`, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    agent,
  });
  try {
    return { status: r.status, body: JSON.parse(r.text) };
  } catch {
    // HAProxy's own error pages are HTML (503 when no replica is up).
    return { status: r.status, body: { error: { message: r.text.slice(0, 200) } } };
  }
}

async function health(base: string): Promise<{ status: number; head?: { number: number; hash: string } }> {
  const r = await rawHttp(`${base}/health`, { method: 'GET' });
  return { status: r.status, head: JSON.parse(r.text).head };
}

async function anvilHead(): Promise<{ number: number; hash: string }> {
  const b = (await anvil.call('eth_getBlockByNumber', ['latest', false])) as { number: string; hash: string };
  return { number: Number(b.number), hash: b.hash };
}

async function serveReplica(datadir: string, upstream = anvil.url): Promise<ServeCli> {
  const serve = await startServeCli([
    '--datadir',
    datadir,
    '--port',
    '0',
    '--keys-file',
    join(tmp.dir, 'keys.yaml'),
    '--log-level',
    'warn',
    '--follow',
    upstream,
    '--follow.poll-interval-ms',
    '100',
    '--follow.health-max-lag-blocks',
    '2',
    '--follow.health-max-silence-ms',
    '3000',
    '--redis',
    redis.url,
    '--redis.reconnect-max-ms',
    '200',
    // On a loaded 2-core test machine a Redis answer can take 100 ms (the default timeout).
    '--redis.command-timeout-ms',
    '2000',
    '--execution.evm-workers',
    '1',
  ]);
  replicas.push(serve);
  return serve;
}

/**
 * Sends `perSecond` calls a second of `method` through the balancer for `ms`, not waiting for
 * answers to send the next; counts answers by outcome.
 */
async function load(key: string, method: string, perSecond: number, ms: number, during?: (elapsed: number) => void) {
  const counts = { ok: 0, limited: 0, failed: [] as string[], sentOverMs: 0 };
  const pending: Promise<void>[] = [];
  const t0 = performance.now();
  for (let i = 0; ; i++) {
    // The offset decides, not `due - t0`: (t0 + 9500) - t0 can come out as 9499.99…, one call too many.
    const offset = (i * 1000) / perSecond;
    if (offset >= ms) break;
    const due = t0 + offset;
    const wait = due - performance.now();
    if (wait > 0) await paced(wait);
    during?.(performance.now() - t0);
    counts.sentOverMs = performance.now() - t0;
    pending.push(
      post(lb, key, method).then(
        (r) => {
          if (r.status === 200 && r.body.result !== undefined) counts.ok++;
          else if (r.status === 429) counts.limited++;
          else counts.failed.push(`${r.status} ${JSON.stringify(r.body)}`);
        },
        (err: Error) => {
          counts.failed.push(err.message);
        },
      ),
    );
  }
  await Promise.all(pending);
  return counts;
}

/** A load's outcome without its timing (for exact comparisons). */
const outcome = ({ ok, limited, failed }: { ok: number; limited: number; failed: string[] }) => ({ ok, limited, failed });

async function metric(base: string, name: string): Promise<number> {
  const text = (await rawHttp(`${base}/metrics`, { method: 'GET' })).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? Number.NaN : Number(line.split(' ')[1]);
}

/**
 * A TCP proxy to anvil that the test can cut (every connection dropped, new ones refused) and
 * restore: the upstream link of one replica, to make it fall behind.
 */
interface CuttableProxy {
  url: string;
  cut(): void;
  restore(): void;
  close(): void;
}

async function cuttableProxy(target: URL): Promise<CuttableProxy> {
  let open = true;
  const sockets = new Set<Socket>();
  const server = createNetServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  // Port 0: the kernel's choice, held from the start (a number found free earlier may be taken by then).
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      open = true;
    },
    close() {
      open = false;
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** An answer of HAProxy itself: no replica was up to take the call (it reached none). */
const noReplicaUp = (r: { status: number; body: { error?: { message: string } } }) =>
  r.status === 503 && (r.body.error?.message ?? '').includes('No server is available');

/**
 * A call through HAProxy, sent again while HAProxy has no replica up to take it (a replica starved
 * of CPU on a loaded machine can miss its health checks for a moment): what it answers comes from a
 * replica, which is what the tests look at.
 */
async function postThrough(key: string, method: string, params: unknown[] = []): Promise<Awaited<ReturnType<typeof post>>> {
  return until(
    'a replica up behind HAProxy',
    () => post(lb, key, method, params),
    (r) => !noReplicaUp(r),
    30_000,
  );
}

/** Waits until every replica is healthy and HAProxy sends calls to each. */
async function allInRotation(): Promise<void> {
  for (const r of replicas) {
    await until(
      'replica healthy',
      () => health(r.base),
      (h) => h.status === 200,
      30_000,
    );
    await until(
      'replica in HAProxy',
      () => reaching(r.base, 6),
      (n) => n > 0,
      30_000,
    );
  }
}

/**
 * How many of `calls` calls through HAProxy, one after another, the replica at `base` answered
 * (web3_clientVersion: a method the tests' own counts leave alone).
 */
async function reaching(base: string, calls: number): Promise<number> {
  const before = await answered(base, 'web3_clientVersion');
  for (let i = 0; i < calls; i++) await post(lb, OPEN, 'web3_clientVersion');
  return (await answered(base, 'web3_clientVersion')) - before;
}

/** Calls of `method` a replica answered, from its /metrics (every outcome). */
async function answered(base: string, method: string): Promise<number> {
  const text = (await rawHttp(`${base}/metrics`, { method: 'GET' })).text;
  return text
    .split('\n')
    .filter((l) => l.startsWith('tracenode_requests_total{') && l.includes(`method="${method}"`))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

describe('replicas behind HAProxy, limits in Redis', () => {
  beforeAll(async () => {
    writeFileSync(
      join(tmp.dir, 'keys.yaml'),
      `keys:\n  - key: ${KEY}\n    id: limited\n    rateLimit: { perSecond: ${RATE}, burst: ${RATE} }\n  - key: ${OPEN}\n    id: open\n`,
    );
    anvil = await startBareAnvil(join(tmp.dir, 'anvil'));
    // A contract that logs Tick(id, value), deployed before the replicas start.
    const deploy = await anvil.send({ data: TICK_INITCODE, gas: 0x100000n });
    await anvil.mine();
    ticker = ((await anvil.call('eth_getTransactionReceipt', [deploy])) as { contractAddress: string }).contractAddress;
    for (let i = 0; i < 5; i++) await anvil.mine();
    redis = await startRedis();
  }, 180_000);

  afterAll(async () => {
    await haproxy?.stop();
    link?.close();
    for (const r of replicas) {
      if (r.child.exitCode === null) r.child.kill('SIGTERM');
      await r.exited;
    }
    await redis?.stop();
    await anvil?.stop();
    agent.destroy();
    tmp.cleanup();
  });

  it('snapshots taken while replica 1 serves under load and follows start replicas 2 and 3 at the same head', async () => {
    const first = join(tmp.dir, 'r1');
    await initDatadir(first, readFileSync(anvil.genesisPath, 'utf8'), testConfig());
    const r1 = await serveReplica(first);
    await until(
      'replica 1 caught up',
      () => health(r1.base),
      (h) => h.status === 200,
      60_000,
    );
    // Load on replica 1 and anvil mining a block every 100 ms while the snapshots are taken.
    let stop = false;
    let answered = 0;
    const failures: string[] = [];
    const loadLoop = (async () => {
      while (!stop) {
        const r = await post(r1.base, OPEN, 'eth_getBalance', ['0x0000000000000000000000000000000000000001', 'latest']).catch((e: Error) => ({
          status: 0,
          body: { result: undefined, error: { message: e.message } },
        }));
        if (r.status === 200 && r.body.result !== undefined) answered++;
        else failures.push(JSON.stringify(r));
      }
    })();
    const mining = (async () => {
      while (!stop) {
        await anvil.mine();
        await paced(100);
      }
    })();
    const shots = [];
    for (const name of ['r2', 'r3']) shots.push(await runCli(['snapshot', '--datadir', first, join(tmp.dir, name)]));
    stop = true;
    await Promise.all([loadLoop, mining]);
    for (const s of shots) {
      expect(s.code, s.stderr).toBe(0);
      expect(s.stdout).toMatch(/^snapshot: \S+ written: \d+ entries, [\d.]+ MiB in [\d.]+ s\n$/);
    }
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(0);
    link = await cuttableProxy(new URL(anvil.url));
    await serveReplica(join(tmp.dir, 'r2'), link.url);
    await serveReplica(join(tmp.dir, 'r3'));
    const head = await anvilHead();
    for (const r of replicas) {
      const h = await until(
        'caught up',
        () => health(r.base),
        (x) => x.status === 200 && x.head?.number === head.number,
        60_000,
      );
      expect(h.head).toEqual(head);
    }
  }, 150_000);

  it('HAProxy with deploy/haproxy.cfg spreads calls over the three replicas', async () => {
    const env: Record<string, string> = {};
    replicas.forEach((r, i) => {
      env[`REPLICA${i + 1}`] = new URL(r.base).host;
    });
    const started = await startHaproxyListening(
      HAPROXY!,
      join(ROOT, 'deploy/haproxy.cfg'),
      env,
      async (url) => (await post(url, OPEN, 'eth_chainId')).status === 200,
    );
    haproxy = started.haproxy;
    lb = started.url;
    const counts = await load(OPEN, 'eth_blockNumber', 150, 1000);
    expect(outcome(counts)).toEqual({ ok: 150, limited: 0, failed: [] });
  });

  it(`a key limited to ${RATE}/s, loaded at 200/s for 9.5 s through the balancer, gets ${RATE}/s ± 10 % in all`, async () => {
    const counts = await load(KEY, 'eth_blockNumber', 200, 9_500);
    const seen = `${counts.ok} answered, ${counts.limited} limited, ${counts.failed.length} failed over ${Math.round(counts.sentOverMs)} ms: ${counts.failed.slice(0, 3).join('; ')}`;
    expect(counts.failed, seen).toEqual([]);
    expect(counts.ok + counts.limited, seen).toBe(1900);
    // The key's windows are 1 s from its first call: 10 windows when the calls went out over 9.5 s as
    // planned, more when a busy machine made the sending run late.
    const windows = Math.ceil(counts.sentOverMs / 1000);
    expect(counts.ok, seen).toBeGreaterThanOrEqual(RATE * windows * 0.9);
    expect(counts.ok, seen).toBeLessThanOrEqual(RATE * windows * 1.1);
  });

  it('a log filter made through the balancer, polled 20 times across the replicas, returns each of 20 new logs exactly once', async () => {
    await allInRotation();
    const made = await postThrough(OPEN, 'eth_newFilter', [{ address: ticker, topics: [TICK_TOPIC] }]);
    const id = made.body.result as string;
    // geth's ids: 16 random bytes as a quantity (leading zeros dropped)
    expect(id).toMatch(/^0x[1-9a-f][0-9a-f]{0,31}$/);
    const pollsBefore = await Promise.all(replicas.map((r) => answered(r.base, 'eth_getFilterChanges')));
    const got: Array<{ topics: string[]; blockHash: string; transactionHash: string; removed: boolean }> = [];
    const sent: Array<{ hash: string; block: string }> = [];
    for (let i = 0; i < 20; i++) {
      const word = (n: number) => n.toString(16).padStart(64, '0');
      const hash = await anvil.send({ to: ticker as `0x${string}`, data: `0x${word(i)}${word(1000 + i)}`, gas: 100_000n });
      await anvil.mine();
      sent.push({ hash, block: ((await anvil.call('eth_getTransactionReceipt', [hash])) as { blockHash: string }).blockHash });
      const r = await postThrough(OPEN, 'eth_getFilterChanges', [id]);
      expect(r.status).toBe(200);
      got.push(...(r.body.result as typeof got));
    }
    // Replicas a block behind answer nothing yet: poll until each log has come (never twice).
    await until(
      'every log delivered',
      async () => {
        const r = await postThrough(OPEN, 'eth_getFilterChanges', [id]);
        got.push(...(r.body.result as typeof got));
        return got.length;
      },
      (n) => n >= 20,
      20_000,
    );
    expect(got.map((l) => [BigInt(l.topics[1]), l.transactionHash, l.blockHash, l.removed])).toEqual(sent.map((s, i) => [BigInt(i), s.hash, s.block, false]));
    // The polls went to every replica, not to one.
    const polls = (await Promise.all(replicas.map((r) => answered(r.base, 'eth_getFilterChanges')))).map((n, i) => n - pollsBefore[i]);
    expect(polls.every((n) => n > 0)).toBe(true);

    // A reorganisation, seen by every replica: branch A (two ticks) polled, then replaced by a
    // longer branch B (one tick). The next polls give A's logs as removed, newest first, then B's.
    const word = (n: number) => n.toString(16).padStart(64, '0');
    const tick = async (n: number) => {
      const hash = await anvil.send({ to: ticker as `0x${string}`, data: `0x${word(n)}${word(n)}`, gas: 100_000n });
      await anvil.mine();
      return { hash, block: ((await anvil.call('eth_getTransactionReceipt', [hash])) as { blockHash: string }).blockHash };
    };
    const allAtAnvilHead = async () => {
      const head = await anvilHead();
      for (const r of replicas)
        await until(
          'replica at head',
          () => health(r.base),
          (h) => h.head?.hash === head.hash,
          20_000,
        );
    };
    const snapshot = await anvil.call('evm_snapshot');
    const branchA = [await tick(100), await tick(101)];
    await allAtAnvilHead();
    const seenA: typeof got = [];
    await until(
      'branch A delivered',
      async () => {
        seenA.push(...((await postThrough(OPEN, 'eth_getFilterChanges', [id])).body.result as typeof got));
        return seenA.length;
      },
      (n) => n >= 2,
      20_000,
    );
    expect(seenA.map((l) => [l.transactionHash, l.removed])).toEqual(branchA.map((t) => [t.hash, false]));
    expect(await anvil.call('evm_revert', [snapshot])).toBe(true);
    await anvil.mine();
    const b = await tick(200);
    await anvil.mine();
    await allAtAnvilHead();
    const afterReorg: typeof got = [];
    await until(
      'reorganisation delivered',
      async () => {
        afterReorg.push(...((await postThrough(OPEN, 'eth_getFilterChanges', [id])).body.result as typeof got));
        return afterReorg.length;
      },
      (n) => n >= 3,
      20_000,
    );
    expect(afterReorg.map((l) => [l.transactionHash, l.blockHash, l.removed])).toEqual([
      [branchA[1].hash, branchA[1].block, true],
      [branchA[0].hash, branchA[0].block, true],
      [b.hash, b.block, false],
    ]);
    // Another key does not see it; uninstalled through one replica, it is gone on all.
    expect((await post(lb, KEY, 'eth_getFilterChanges', [id])).body.error?.message).toBe('filter not found');
    expect((await post(lb, OPEN, 'eth_uninstallFilter', [id])).body.result).toBe(true);
    for (const r of replicas) expect((await post(r.base, OPEN, 'eth_getFilterChanges', [id])).body.error?.message).toBe('filter not found');
  });

  it('Redis stopped: the replicas keep answering, each counting alone, and say so; Redis back: the shared limit holds again', async () => {
    const seen = replicas.map((r) => r.output().length);
    await redis.stop();
    for (const r of replicas)
      await until(
        'redis down seen',
        () => metric(r.base, 'tracenode_redis_up'),
        (v) => v === 0,
        10_000,
      );
    await allInRotation();
    const alone = await load(KEY, 'eth_blockNumber', 200, 2_900);
    expect(alone.failed).toEqual([]);
    // Each replica allows the whole rate: three times the shared limit, bounded by the 200/s sent.
    expect(alone.ok).toBeGreaterThan(RATE * 3 * 2);
    for (const r of replicas) expect(await metric(r.base, 'tracenode_limit_local_fallback_total')).toBeGreaterThan(0);
    // One line per replica for the outage, however many reconnection attempts it made.
    const outage = replicas.map(
      (r, i) =>
        r
          .output()
          .slice(seen[i])
          .split('\n')
          .filter((l) => l.includes('redis: unreachable')).length,
    );
    expect(outage).toEqual([1, 1, 1]);
    await redis.start();
    for (const r of replicas)
      await until(
        'redis back',
        () => metric(r.base, 'tracenode_redis_up'),
        (v) => v === 1,
        10_000,
      );
    await allInRotation();
    const shared = await load(KEY, 'eth_blockNumber', 200, 2_900);
    expect(shared.failed).toEqual([]);
    const windows = Math.ceil(shared.sentOverMs / 1000); // 3 when sent on time over 2.9 s
    expect(shared.ok).toBeGreaterThanOrEqual(RATE * windows * 0.9);
    expect(shared.ok).toBeLessThanOrEqual(RATE * windows * 1.1);
  });

  it('a replica cut from the upstream is taken out once it cannot tell its lag, and put back when it has caught up', async () => {
    const r2 = replicas[1];
    const served = () => answered(r2.base, 'eth_chainId');
    link.cut();
    for (let i = 0; i < 4; i++) await anvil.mine();
    // Cut off, it cannot tell how far behind it is: after follow.health-max-silence-ms (3 s)
    // without the upstream, /health is 503 and HAProxy takes it out.
    await until(
      'replica 2 unhealthy',
      () => health(r2.base),
      (h) => h.status === 503,
      20_000,
    );
    // Out after two failed checks (deploy/haproxy.cfg: within 1.25 s): six calls in a row through
    // HAProxy, none of them reaching it.
    await until(
      'replica 2 out of HAProxy',
      () => reaching(r2.base, 6),
      (n) => n === 0,
      20_000,
    );
    const before = await served();
    expect(outcome(await load(OPEN, 'eth_chainId', 100, 1_000))).toEqual({ ok: 100, limited: 0, failed: [] });
    expect(await served()).toBe(before);
    link.restore();
    const head = await anvilHead();
    await until(
      'replica 2 caught up',
      () => health(r2.base),
      (h) => h.status === 200 && h.head?.hash === head.hash,
      30_000,
    );
    // Back after two good checks (within 1.25 s): a call through HAProxy reaches it again.
    await until(
      'replica 2 back in HAProxy',
      () => reaching(r2.base, 6),
      (n) => n > 0,
      20_000,
    );
    expect(outcome(await load(OPEN, 'eth_chainId', 99, 1_000))).toEqual({ ok: 99, limited: 0, failed: [] });
    // Round robin over three replicas again: a third of the calls.
    expect((await served()) - before).toBe(33);
  });

  it('kill -9 of a replica under load: at most the calls in flight on it fail, and HAProxy stops sending to it', async () => {
    const victim = replicas[2];
    let killedAt = 0;
    const counts = await load(OPEN, 'eth_blockNumber', 200, 4_000, (elapsed) => {
      if (killedAt === 0 && elapsed >= 1_000) {
        killedAt = elapsed;
        victim.child.kill('SIGKILL');
      }
    });
    // At 200 calls a second answered in about a millisecond, a replica holds a few at most.
    expect(counts.failed.length, counts.failed.join('\n')).toBeLessThanOrEqual(5);
    expect(counts.ok + counts.failed.length).toBe(800);
    const after = await load(OPEN, 'eth_blockNumber', 200, 1_000);
    expect(outcome(after)).toEqual({ ok: 200, limited: 0, failed: [] });
  });
});
