/**
 * Several replicas behind HAProxy (issue 19): copies of the bench chain's datadir made with
 * `tracenode snapshot`, each served by its own `tracenode serve --redis` (one EVM worker each),
 * and HAProxy with deploy/haproxy.cfg in front of 1, 2 and 3 of them. Measured, all in one run:
 * - the snapshot of the datadir (MiB/s);
 * - eth_getStorageAt at latest and a view eth_call (the ERC-20 balanceOf) through the balancer with
 *   1, 2 and 3 replicas, HTTP keep-alive, the run's connections; the same straight to one replica;
 * - the balancer's hop: one connection, p50 through HAProxy minus p50 straight to the replica (µs);
 * - the Redis limiter: one connection straight to a replica, p50 of a key with a rate limit
 *   counted in Redis minus p50 of a key without limits (µs), and the same counted in the process;
 *   each from probes taken in turns (a, b, a, b…, medians), so the machine's drift hits both;
 * - each replica's RSS after the load.
 * On a 2-core machine the replicas, HAProxy, Redis and the load generator share the same two
 * cores, so throughput cannot grow with replicas here: the per-request costs are what carry over
 * to a larger host.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type HaproxyProcess, startHaproxyListening, startRedis } from '../scripts/lib/services.js';
import { httpPost } from './jsonRpc.js';
import { runLoad, runProbe } from './load.js';
import { round } from './names.js';
import { API_KEY, type Endpoint, REPO, rssMiB, runCommand, type StartedServer, startServer, tracenodeArgs } from './processes.js';
import type { LoadResult } from './wsLoad.js';

export interface ReplicasInputs {
  datadir: string;
  storageBody: string;
  viewBody: string;
  connections: number;
  durationS: number;
  probeS: number;
  log: (line: string) => void;
}

interface Throughput {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

export interface ReplicasReport {
  snapshot: { mib: number; seconds: number; mibPerSecond: number };
  /** Straight to one replica, then through HAProxy with 1, 2 and 3 replicas. */
  storage: { direct: Throughput; viaBalancer: Throughput[] };
  call: { direct: Throughput; viaBalancer: Throughput[] };
  /** One connection: p50 through HAProxy (1 replica) minus p50 straight to it. */
  balancerHopUs: number;
  /** One connection straight to a replica: p50 with a Redis-counted rate limit minus p50 without limits. */
  redisLimiterUs: number;
  /** The same with the limit counted in the process (no --redis), for comparison. */
  localLimiterUs: number;
  rssMiB: number[];
}

const LIMITED_KEY = 'bench-limited';
/** Turns of the interleaved one-connection probes behind each per-request cost. */
const PROBE_ROUNDS = 5;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const throughput = (r: LoadResult): Throughput => ({
  rps: round(r.rps, 1),
  p50Ms: round(r.p50, 3),
  p99Ms: round(r.p99, 3),
  errors: r.errors + r.timeouts + r.mismatches + r.non2xx,
});

/** deploy/haproxy.cfg with only the first `n` servers. */
function haproxyConfig(n: number): string {
  return readFileSync(join(REPO, 'deploy', 'haproxy.cfg'), 'utf8')
    .split('\n')
    .filter((l) => {
      const m = /^\s*server replica(\d)/.exec(l);
      return m === null || Number(m[1]) <= n;
    })
    .join('\n');
}

export async function measureReplicas(o: ReplicasInputs): Promise<ReplicasReport> {
  const work = mkdtempSync(join(tmpdir(), 'tracenode-bench-replicas-'));
  const servers: StartedServer[] = [];
  let haproxy: HaproxyProcess | undefined;
  const redis = await startRedis();
  try {
    // Copies of the datadir, as a new replica gets one.
    const t0 = performance.now();
    const shot = await runCommand(process.execPath, tracenodeArgs('snapshot', '--datadir', o.datadir, join(work, 'r1')), { timeoutMs: 600_000 });
    if (shot.code !== 0) throw new Error(`snapshot failed: ${shot.stderr.slice(-500)}`);
    const seconds = (performance.now() - t0) / 1000;
    const mib = Number(/([\d.]+) MiB in/.exec(shot.stdout)?.[1] ?? 0);
    o.log(`replicas: snapshot of the bench datadir: ${mib} MiB in ${seconds.toFixed(1)} s`);
    for (const r of ['r2', 'r3', 'local']) {
      const more = await runCommand(process.execPath, tracenodeArgs('snapshot', '--datadir', join(work, 'r1'), join(work, r)), { timeoutMs: 600_000 });
      if (more.code !== 0) throw new Error(`snapshot failed: ${more.stderr.slice(-500)}`);
    }
    const keysFile = join(work, 'keys.yaml');
    writeFileSync(keysFile, `keys:\n  - key: ${API_KEY}\n  - key: ${LIMITED_KEY}\n    rateLimit: { perSecond: 1000000000, burst: 1000000000 }\n`);
    const serve = async (dir: string, shared: boolean) => {
      const args = [
        'serve',
        '--datadir',
        join(work, dir),
        '--keys-file',
        keysFile,
        '--port',
        '0',
        '--log-level',
        'warn',
        '--execution.evm-workers',
        '1',
        '--execution.call-cache-bytes',
        '0',
      ];
      const s = await startServer(
        `tracenode ${dir}`,
        tracenodeArgs(...args, ...(shared ? ['--redis', redis.url] : [])),
        /JSON-RPC\s+http:\/\/127\.0\.0\.1:(\d+)\//,
        120_000,
        join(work, `${dir}.log`),
      );
      servers.push(s);
      return `127.0.0.1:${s.match[1]}`;
    };
    const replicas = [await serve('r1', true), await serve('r2', true), await serve('r3', true)];
    const endpoint = (hostPort: string, key = API_KEY): Endpoint => ({ http: `http://${hostPort}/v3/${key}`, ws: '', headers: {} });
    const expected = async (e: Endpoint, body: string) => (await httpPost(e.http, body)).text;
    const exactly = (text: string) => (t: string) => t === text;
    const direct = endpoint(replicas[0]);
    const storageAnswer = await expected(direct, o.storageBody);
    const callAnswer = await expected(direct, o.viewBody);
    const load = (e: Endpoint, body: string, answer: string) => runLoad('http', e, body, exactly(answer), o.connections, o.durationS, 1);
    const probe = (e: Endpoint, body: string, answer: string) => runProbe(e, body, exactly(answer), o.probeS);

    /**
     * What `b` adds to `a`, one connection, µs: both warmed, then probed in turns (a, b, a, b…)
     * so that the machine's load drifts over both alike; the median of each side's p50s.
     */
    const added = async (a: Endpoint, b: Endpoint): Promise<number> => {
      for (const e of [a, b]) await probe(e, o.storageBody, storageAnswer);
      const pa: number[] = [];
      const pb: number[] = [];
      for (let i = 0; i < PROBE_ROUNDS; i++) {
        pa.push((await probe(a, o.storageBody, storageAnswer)).p50);
        pb.push((await probe(b, o.storageBody, storageAnswer)).p50);
      }
      return round((median(pb) - median(pa)) * 1000, 1);
    };
    // The limiters, straight to replica 1 and to a replica without --redis.
    const redisLimiterUs = await added(direct, endpoint(replicas[0], LIMITED_KEY));
    const localReplica = await serve('local', false);
    const localLimiterUs = await added(endpoint(localReplica), endpoint(localReplica, LIMITED_KEY));
    await servers.pop()!.stop();
    o.log(`replicas: a rate limit adds ${redisLimiterUs} µs counted in Redis, ${localLimiterUs} µs counted in the process (p50, one connection)`);

    const report: ReplicasReport = {
      snapshot: { mib, seconds: round(seconds, 1), mibPerSecond: round(mib / seconds, 1) },
      storage: { direct: throughput(await load(direct, o.storageBody, storageAnswer)), viaBalancer: [] },
      call: { direct: throughput(await load(direct, o.viewBody, callAnswer)), viaBalancer: [] },
      balancerHopUs: 0,
      redisLimiterUs,
      localLimiterUs,
      rssMiB: [],
    };
    for (const n of [1, 2, 3]) {
      const config = join(work, `haproxy-${n}.cfg`);
      writeFileSync(config, haproxyConfig(n));
      // Up once every server has passed its checks (2 good ones, 1 s apart).
      const started = await startHaproxyListening(
        'haproxy',
        config,
        { REPLICA1: replicas[0], REPLICA2: replicas[1], REPLICA3: replicas[2] },
        async (url) => (await expected(endpoint(new URL(url).host), o.storageBody)) === storageAnswer,
      );
      haproxy = started.haproxy;
      const lb = endpoint(new URL(started.url).host);
      await new Promise((r) => setTimeout(r, 2500));
      if (n === 1) report.balancerHopUs = await added(direct, lb);
      report.storage.viaBalancer.push(throughput(await load(lb, o.storageBody, storageAnswer)));
      report.call.viaBalancer.push(throughput(await load(lb, o.viewBody, callAnswer)));
      o.log(
        `replicas: ${n} behind HAProxy: eth_getStorageAt ${report.storage.viaBalancer[n - 1].rps} req/s, eth_call ${report.call.viaBalancer[n - 1].rps} req/s`,
      );
      await haproxy.stop();
      haproxy = undefined;
    }
    report.rssMiB = servers.map((s) => round(rssMiB(s.proc.pid) ?? 0, 1));
    return report;
  } finally {
    await haproxy?.stop();
    for (const s of servers) await s.stop();
    await redis.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
