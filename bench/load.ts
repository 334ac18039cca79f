/**
 * Driving load: HTTP keep-alive with autocannon, WebSocket with bench/wsLoad.ts, the same
 * concurrency on both, for a fixed duration after a warm-up; the one-connection HTTP run for the
 * unloaded latency. Every answer goes through the run's verifier (bench/verify.ts), and a wrong
 * one counts as an error.
 */
import { createRequire } from 'node:module';
import { httpPost, requestBody } from './jsonRpc.js';
import { round, type Transport } from './names.js';
import type { Endpoint } from './processes.js';
import { type CpuClock, cpuPerRequest, type LoadResult, Samples, wsLoad } from './wsLoad.js';

interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  non2xx: number;
}
type Autocannon = (opts: Record<string, unknown>, cb: (err: Error | null, res: AutocannonResult) => void) => NodeJS.EventEmitter;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** True when an answer's text is the right answer. */
export type Verify = (text: string) => boolean;

/**
 * HTTP keep-alive load with autocannon: one run of warm-up + duration on the same connections;
 * throughput and latency count the answers that arrive inside the measured window (latencies from
 * autocannon's per-response event, sub-millisecond), correctness counts every answer.
 */
export function httpLoad(o: {
  url: string;
  headers: Record<string, string>;
  body: string;
  verify: Verify;
  connections: number;
  durationS: number;
  warmupS?: number;
  /** The server's CPU clock, read at the window's ends. */
  cpu?: CpuClock;
  /**
   * A request of its own for each one sent (a traffic mix), with its verifier; `body` and
   * `verify` are then the first request's, unused.
   */
  pick?: () => { body: string; verify: Verify };
}): Promise<LoadResult> {
  const samples = new Samples();
  const cpu: { start?: number; end?: number } = {};
  let firstMismatch: string | undefined;
  let pickedMismatches = 0;
  const pick = o.pick;
  // With `pick`, each request is built as it is sent and checked by the verifier it was sent with.
  const mixed =
    pick === undefined
      ? {}
      : {
          requests: [
            {
              method: 'POST',
              setupRequest: (req: Record<string, unknown>, context: { verify?: Verify }) => {
                const next = pick();
                context.verify = next.verify;
                return { ...req, body: next.body };
              },
              onResponse: (_status: number, body: string, context: { verify?: Verify }) => {
                if (context.verify?.(body) !== false) return;
                pickedMismatches++;
                firstMismatch ??= body.slice(0, 300);
              },
            },
          ],
        };
  const warmupMs = (o.warmupS ?? 0) * 1000;
  return new Promise((resolveLoad, reject) => {
    const t0 = performance.now();
    const windowStart = t0 + warmupMs;
    const windowEnd = windowStart + o.durationS * 1000;
    if (o.cpu) {
      const clock = o.cpu;
      setTimeout(() => (cpu.start = clock()), warmupMs);
      setTimeout(() => (cpu.end = clock()), warmupMs + o.durationS * 1000);
    }
    const inst = autocannon(
      {
        url: o.url,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...o.headers },
        body: o.body,
        connections: o.connections,
        duration: warmupMs / 1000 + o.durationS,
        timeout: 30,
        sampleInt: 100, // autocannon notices the end of the run at its next sample tick
        ...(pick === undefined
          ? {
              verifyBody: (text: string) => {
                const ok = o.verify(text);
                if (!ok) firstMismatch ??= text.slice(0, 300);
                return ok;
              },
            }
          : mixed),
      },
      (err, res) => {
        if (err) return reject(err);
        const { p50, p99, mean } = samples.stats();
        const seconds = Math.max(0.001, (Math.min(performance.now(), windowEnd) - windowStart) / 1000);
        resolveLoad({
          requests: samples.n,
          seconds,
          rps: samples.n / seconds,
          p50,
          p99,
          mean,
          errors: res.errors - res.timeouts,
          timeouts: res.timeouts,
          mismatches: res.mismatches + pickedMismatches,
          non2xx: res.non2xx,
          ...(firstMismatch !== undefined ? { firstMismatch } : {}),
          ...cpuPerRequest(cpu.start, cpu.end, samples.n),
        });
      },
    );
    inst.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
      const t = performance.now();
      if (t >= windowStart && t <= windowEnd) samples.push(responseTime);
    });
  });
}

/**
 * autocannon drops the requests in flight when its time is up, but the server still works on them:
 * wait until a trivial request is answered fast (twice), so that the next run starts on an idle
 * server and no server's leftover work competes with the next one's measurement. Bounded (60 s).
 */
export async function waitIdle(t: Endpoint): Promise<void> {
  const body = requestBody('eth_blockNumber', []);
  const deadline = Date.now() + 60_000;
  let fast = 0;
  while (fast < 2 && Date.now() < deadline) {
    const t0 = performance.now();
    try {
      await httpPost(t.http, body, t.headers, 60_000);
    } catch {
      // a server that fails this gets measured as it is
    }
    fast = performance.now() - t0 < 20 ? fast + 1 : 0;
  }
}

/** One measured run over `transport` with `connections` connections or sockets; HTTP runs end on an idle server. */
export async function runLoad(
  transport: Transport,
  t: Endpoint,
  body: string,
  verify: Verify,
  connections: number,
  durationS: number,
  warmupS: number,
  cpu?: CpuClock,
): Promise<LoadResult> {
  if (transport === 'http') {
    const r = await httpLoad({ url: t.http, headers: t.headers, body, verify, connections, durationS, warmupS, cpu });
    await waitIdle(t);
    return r;
  }
  return wsLoad({ url: t.ws, headers: t.headers, body, verify, connections, durationS, warmupS, timeoutMs: 30_000, cpu });
}

/** The one-connection HTTP run (no warm-up): the unloaded latency. */
export async function runProbe(t: Endpoint, body: string, verify: Verify, durationS: number): Promise<LoadResult> {
  const r = await httpLoad({ url: t.http, headers: t.headers, body, verify, connections: 1, durationS });
  await waitIdle(t);
  return r;
}

/** A run's figures rounded for the results file. */
export function roundLoad(r: LoadResult): LoadResult {
  return {
    ...r,
    seconds: round(r.seconds, 2),
    rps: round(r.rps, 1),
    p50: round(r.p50, 3),
    p99: round(r.p99, 3),
    mean: round(r.mean, 3),
    ...(r.cpuUsPerRequest !== undefined ? { cpuUsPerRequest: round(r.cpuUsPerRequest, 1) } : {}),
  };
}
