/**
 * WebSocket load for the benchmark: `connections` sockets, each with one JSON-RPC request in
 * flight (so `connections` requests are in flight in all, as autocannon keeps over HTTP), the same
 * text frame sent again as soon as its answer arrives, for a fixed duration after a warm-up. Every
 * answer is checked (`verify`), and a fast wrong answer is counted, not timed away.
 *
 * Also: opening many idle sockets (for the memory figure).
 */
import WebSocket from 'ws';

/** The figures of one load run (HTTP or WebSocket). Latencies in milliseconds. */
export interface LoadResult {
  /** Answers received during the measured window (right or wrong). */
  requests: number;
  /** Length of the measured window, seconds. */
  seconds: number;
  /** requests / seconds. */
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  /** Connection errors, closed sockets. */
  errors: number;
  /** Requests still unanswered `timeoutMs` after they were sent. */
  timeouts: number;
  /** Answers that were not the expected answer (wrong result, error instead of result, …). */
  mismatches: number;
  /** HTTP answers with a status outside 2xx (HTTP only). */
  non2xx: number;
  /** The first wrong answer seen, shortened, to say what went wrong. */
  firstMismatch?: string;
  /** The server's CPU time (user + system, all threads, from /proc) over the window, per answer counted, µs. */
  cpuUsPerRequest?: number;
}

/** A server process's CPU seconds so far (user + system, all threads); undefined when it cannot be read. */
export type CpuClock = () => number | undefined;

/** CPU µs per request between two readings of a {@link CpuClock}. */
export function cpuPerRequest(before: number | undefined, after: number | undefined, requests: number): { cpuUsPerRequest?: number } {
  if (before === undefined || after === undefined || requests <= 0) return {};
  return { cpuUsPerRequest: ((after - before) * 1e6) / requests };
}

/** Sorted-sample percentiles (exact). */
export function percentiles(samples: Float64Array | number[], n = samples.length): { p50: number; p99: number; mean: number } {
  if (n === 0) return { p50: 0, p99: 0, mean: 0 };
  const s = Float64Array.from(samples.slice(0, n) as ArrayLike<number>).sort();
  let sum = 0;
  for (let i = 0; i < n; i++) sum += s[i];
  const at = (q: number) => s[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))];
  return { p50: at(0.5), p99: at(0.99), mean: sum / n };
}

/** A growable array of latency samples. */
export class Samples {
  buf = new Float64Array(1 << 14);
  n = 0;
  push(v: number): void {
    if (this.n === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.n++] = v;
  }
  stats(): { p50: number; p99: number; mean: number } {
    return percentiles(this.buf, this.n);
  }
}

export interface WsLoadOptions {
  url: string;
  /** Extra handshake headers (e.g. Host, to pick a tracenode network). */
  headers?: Record<string, string>;
  /** The text frame sent over and over. */
  body: string;
  /** True when an answer is right. */
  verify: (text: string) => boolean;
  connections: number;
  /** Measured window, seconds. */
  durationS: number;
  /** Unmeasured run before the window, seconds (same sockets). */
  warmupS?: number;
  /** An answer later than this counts as a timeout (the run never waits longer). */
  timeoutMs?: number;
  /** The server's CPU seconds so far (all its threads): sampled at the window's ends for {@link LoadResult.cpuUsPerRequest}. */
  cpu?: CpuClock;
}

function openSocket(url: string, headers: Record<string, string> | undefined, timeoutMs: number): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false, handshakeTimeout: timeoutMs });
    const fail = (err: Error) => {
      ws.removeAllListeners();
      ws.on('error', () => {});
      ws.terminate();
      reject(err);
    };
    ws.once('open', () => {
      ws.removeListener('error', fail);
      resolve(ws);
    });
    ws.once('error', fail);
    ws.once('unexpected-response', (_req, res) => fail(new Error(`WebSocket handshake: HTTP ${res.statusCode}`)));
  });
}

/** Runs the load; resolves once every socket is closed. Bounded: warm-up + duration + timeout. */
export async function wsLoad(opts: WsLoadOptions): Promise<LoadResult> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const sockets = await Promise.all(Array.from({ length: opts.connections }, () => openSocket(opts.url, opts.headers, timeoutMs)));
  const samples = new Samples();
  let measuring = false;
  let stopping = false;
  let requests = 0;
  let errors = 0;
  let mismatches = 0;
  let firstMismatch: string | undefined;
  let measureStart = 0;
  let measureEnd = Number.POSITIVE_INFINITY;
  let timeouts = 0;

  const done = sockets.map(
    (ws) =>
      new Promise<void>((resolve) => {
        let sentAt = 0;
        let waiting = false;
        let finished = false;
        const finish = () => {
          if (finished) return;
          finished = true;
          clearInterval(watchdog);
          resolve();
        };
        const send = () => {
          if (stopping || ws.readyState !== WebSocket.OPEN) {
            finish();
            return;
          }
          sentAt = performance.now();
          waiting = true;
          ws.send(opts.body);
        };
        // A request unanswered for timeoutMs ends this socket's part of the run.
        const watchdog = setInterval(() => {
          if (waiting && performance.now() - sentAt > timeoutMs) {
            waiting = false;
            timeouts++;
            finish();
          } else if (!waiting && stopping) finish();
        }, 250);
        ws.on('message', (data: WebSocket.RawData) => {
          if (!waiting) return;
          waiting = false;
          const t = performance.now();
          // Throughput and latency: answers that arrive inside the window (as autocannon counts).
          if (measuring && t >= measureStart && t <= measureEnd) {
            requests++;
            samples.push(t - sentAt);
          }
          // Correctness: every answer, warm-up and drain included.
          const text = data.toString();
          if (!opts.verify(text)) {
            mismatches++;
            firstMismatch ??= text.slice(0, 300);
          }
          send();
        });
        let failed = false;
        ws.on('error', () => {
          if (!failed) errors++;
          failed = true;
        });
        ws.on('close', () => {
          if (waiting && !failed) errors++;
          waiting = false;
          finish();
        });
        send();
      }),
  );
  await new Promise((r) => setTimeout(r, (opts.warmupS ?? 0) * 1000));
  measureStart = performance.now();
  const cpu0 = opts.cpu?.();
  measuring = true;
  await new Promise((r) => setTimeout(r, opts.durationS * 1000));
  measureEnd = performance.now();
  const cpu1 = opts.cpu?.();
  // No new requests; the ones in flight are awaited (and checked), not counted.
  stopping = true;
  await Promise.all(done);
  measuring = false;
  await closeAll(sockets);
  const seconds = (measureEnd - measureStart) / 1000;
  const { p50, p99, mean } = samples.stats();
  return {
    requests,
    seconds,
    rps: requests / seconds,
    p50,
    p99,
    mean,
    errors,
    timeouts,
    mismatches,
    non2xx: 0,
    ...(firstMismatch !== undefined ? { firstMismatch } : {}),
    ...cpuPerRequest(cpu0, cpu1, requests),
  };
}

async function closeAll(sockets: WebSocket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (ws) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === WebSocket.CLOSED) return resolve();
          const t = setTimeout(() => {
            ws.terminate();
            resolve();
          }, 2000);
          ws.once('close', () => {
            clearTimeout(t);
            resolve();
          });
          ws.on('error', () => {});
          ws.close(1000);
        }),
    ),
  );
}

/** One request over a fresh socket: the answer text (to learn the expected answer). */
export async function wsOnce(url: string, body: string, headers?: Record<string, string>, timeoutMs = 60_000): Promise<string> {
  const ws = await openSocket(url, headers, timeoutMs);
  try {
    return await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no WebSocket answer from ${url} within ${timeoutMs} ms`)), timeoutMs);
      ws.once('message', (data: WebSocket.RawData) => {
        clearTimeout(t);
        resolve(data.toString());
      });
      ws.once('close', () => {
        clearTimeout(t);
        reject(new Error(`WebSocket ${url} closed before answering`));
      });
      ws.send(body);
    });
  } finally {
    await closeAll([ws]);
  }
}

/**
 * Opens `count` idle sockets (`batch` handshakes at a time); close() closes them all. Each socket
 * is checked to be open and answering nothing: a server that drops them shows as `open` < count.
 */
export async function openIdleSockets(
  url: string,
  count: number,
  opts: { headers?: Record<string, string>; batch?: number } = {},
): Promise<{ open: () => number; close: () => Promise<void> }> {
  const sockets: WebSocket[] = [];
  const batch = opts.batch ?? 100;
  try {
    for (let i = 0; i < count; i += batch) {
      const part = await Promise.all(Array.from({ length: Math.min(batch, count - i) }, () => openSocket(url, opts.headers, 30_000)));
      for (const ws of part) ws.on('error', () => {});
      sockets.push(...part);
    }
  } catch (err) {
    await closeAll(sockets);
    throw err;
  }
  return {
    open: () => sockets.filter((ws) => ws.readyState === WebSocket.OPEN).length,
    close: () => closeAll(sockets),
  };
}
