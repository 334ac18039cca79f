/**
 * The bench's child processes: commands run to completion (tracenode init and import, the raw
 * execution and Starknet benches) and long-running servers (tracenode, the Fastify floor, the
 * node:http floor) started on 127.0.0.1 port 0 and ready once their output says where they
 * listen. Every child is killed when the bench process exits, also on failure. Also: where each
 * server is reached for each network, and a process's resident memory.
 *
 * anvil is started by the chain generator (bench/chains.ts), which keeps the instance that mined
 * the chain serving it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { statCpuSeconds } from '../src/proc/threadCpu.js';
import type { Network, ServerName } from './names.js';
import type { CpuClock } from './wsLoad.js';

/** bench/ */
export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
/** The repository root: the children's working directory. */
export const REPO = resolve(BENCH_DIR, '..');
/** The API key tracenode and the floors accept (`/v3/<key>`). */
export const API_KEY = 'bench';
/** Node flags that run a TypeScript file. */
export const TSX = ['--import', 'tsx'];

/**
 * Node arguments that run tracenode's CLI with `args`: the built `dist/cli.js`, what `npm start`
 * runs (and what users run), not the sources through tsx. {@link buildTracenode} builds it.
 */
export const tracenodeArgs = (...args: string[]): string[] => [join(REPO, 'dist', 'cli.js'), ...args];

/** Builds `dist/` from the sources (`npm run build`), so the bench measures today's code as shipped. */
export async function buildTracenode(): Promise<void> {
  const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = await runCommand(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { timeoutMs: 300_000 });
  if (r.code !== 0) throw new Error(`build failed:\n${(r.stdout + r.stderr).slice(-3000)}`);
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const children = new Set<ChildProcess>();
let exitHook = false;
function trackChild(p: ChildProcess): void {
  children.add(p);
  p.once('exit', () => children.delete(p));
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const c of children) c.kill('SIGKILL');
    });
  }
}

/** Runs a command to completion (bounded by timeoutMs); stdout and stderr as text. */
export function runCommand(
  cmd: string,
  args: string[],
  opts: { timeoutMs: number; onLine?: (line: string) => void; cwd?: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const p = spawn(cmd, args, { cwd: opts.cwd ?? REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    trackChild(p);
    let stdout = '';
    let stderr = '';
    let partial = '';
    const lines = (d: string) => {
      if (!opts.onLine) return;
      partial += d;
      const parts = partial.split(/\r?\n/);
      partial = parts.pop() ?? '';
      for (const l of parts) if (l.trim()) opts.onLine(l);
    };
    p.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      lines(d);
    });
    p.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      lines(d);
    });
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')}: still running after ${Math.round(opts.timeoutMs / 1000)} s, killed`));
    }, opts.timeoutMs);
    p.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    p.once('exit', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}

/** The key of the `controlled` network: every operator control of issue 14 on, none ever reached. */
export const CONTROLLED_KEY = 'bench-controlled';
const CONTROLLED_ORIGIN = 'https://bench.example.org';
/** What a client of the controlled key sends: the key's secret, an allowed Origin and User-Agent. */
export const CONTROLLED_HEADERS: Record<string, string> = {
  authorization: `Basic ${Buffer.from(':bench-secret').toString('base64')}`,
  origin: CONTROLLED_ORIGIN,
  'user-agent': 'tracenode-bench/1',
};

/** Writes the bench's keys file beside the datadir: the controlled key with its policies. */
function writeBenchKeys(datadir: string, token: string): string {
  const path = join(datadir, '..', 'bench-keys.yaml');
  writeFileSync(
    path,
    [
      'keys:',
      `  - key: ${CONTROLLED_KEY}`,
      '    id: bench-controlled',
      '    secret: bench-secret',
      '    rateLimit: { perSecond: 1000000000, burst: 1000000000 }',
      '    dailyQuota: 1000000000000',
      '    maxConcurrentHeavy: 64',
      '    allow:',
      `      origins: ["${CONTROLLED_ORIGIN}"]`,
      '      userAgents: ["tracenode-bench/"]',
      '      methods: [eth_getStorageAt]',
      `      contracts: ["${token}"]`,
      '',
    ].join('\n'),
  );
  return path;
}

/** A server child that is ready: the match of its ready line, its recent output, and stop(). */
export interface StartedServer {
  proc: ChildProcess;
  match: RegExpExecArray;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * A long-running Node child: waits for `ready` to match its output; stop() ends it (SIGTERM, then
 * SIGKILL after 5 s). With `logFile`, its output goes to that file instead of a pipe into this
 * process: tracenode's access log is a line per request, and reading it here would take CPU from
 * the load generator, which runs in this process.
 */
export async function startServer(name: string, args: string[], ready: RegExp, timeoutMs = 60_000, logFile?: string): Promise<StartedServer> {
  const fd = logFile === undefined ? undefined : openSync(logFile, 'w');
  const proc = spawn(process.execPath, args, { cwd: REPO, stdio: fd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', fd, fd] });
  if (fd !== undefined) closeSync(fd);
  trackChild(proc);
  let piped = '';
  const keep = (d: Buffer) => {
    piped += d.toString();
    if (piped.length > 50_000) piped = piped.slice(-20_000);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const out = logFile === undefined ? () => piped : () => tailOf(logFile, 20_000);
  let exited = false;
  const exitedP = new Promise<void>((r) =>
    proc.once('exit', () => {
      exited = true;
      r();
    }),
  );
  const stop = async () => {
    if (exited) return;
    proc.kill('SIGTERM');
    const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await exitedP;
    clearTimeout(t);
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = out();
    const m = ready.exec(text);
    if (m) return { proc, match: m, output: out, stop };
    if (exited) throw new Error(`${name} exited before it was ready:\n${text.slice(-3000)}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${name} not ready after ${timeoutMs / 1000} s:\n${text.slice(-3000)}`);
    }
    await sleep(50);
  }
}

/** The last `bytes` of a file ('' when it cannot be read). */
function tailOf(file: string, bytes: number): string {
  try {
    const size = statSync(file).size;
    const fd = openSync(file, 'r');
    try {
      const length = Math.min(size, bytes);
      const buf = Buffer.alloc(length);
      readSync(fd, buf, 0, length, size - length);
      return buf.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}

/** Reads VmRSS of a process, MiB (Linux). */
export function rssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Where a server answers a network: its HTTP URL, its WebSocket URL ('' when it has none) and extra headers. */
export interface Endpoint {
  http: string;
  ws: string;
  headers: Record<string, string>;
}

/** Each server's endpoint for each network. */
export type Endpoints = Record<ServerName, Record<Network, Endpoint>>;

/** The servers of a run once they listen. */
export interface Servers {
  endpoints: Endpoints;
  tracenode: StartedServer;
  ports: { tracenode: string; anvil: string; floor: string };
  /** Each server's CPU clock (user + system seconds of its process, all threads, from /proc). */
  cpu: Record<ServerName, CpuClock>;
}

/** A process's CPU seconds so far, user + system of all its threads (/proc/PID/stat, Linux); undefined elsewhere or once it is gone. */
export function processCpuSeconds(pid: number | undefined): number | undefined {
  return pid === undefined ? undefined : statCpuSeconds(`/proc/${pid}/stat`);
}

const FLOOR_READY = /listening on http:\/\/127\.0\.0\.1:(\d+)/;

/**
 * Starts tracenode (`serve` on `datadir`, with `networks` as `--networks` when not empty) and the
 * two floors, all at once; anvil already listens at `anvilUrl`. The stop of every server that
 * started is pushed onto `stops`, also when another one fails to start.
 */
export async function startServers(o: {
  datadir: string;
  networks: string;
  anvilUrl: string;
  anvilCpu: CpuClock;
  stops: Array<() => Promise<void>>;
  token: string;
}): Promise<Servers> {
  const keysFile = writeBenchKeys(o.datadir, o.token);
  const started = await Promise.allSettled([
    startServer(
      'tracenode',
      tracenodeArgs(
        'serve',
        '--datadir',
        o.datadir,
        ...(o.networks ? ['--networks', o.networks] : []),
        '--api-keys',
        API_KEY,
        '--keys-file',
        keysFile,
        '--port',
        '0',
        // The default level, info: one access line per request, as users run it. The output
        // goes to a file beside the datadir, not through this process (startServer).
        '--log-level',
        'info',
        // Each case repeats one request: with the eth_call result and estimate caches on, the
        // eth_call and eth_estimateGas cases would measure the caches. They measure each call's own
        // run; the traffic mix measures the caches.
        '--execution.call-cache-bytes',
        '0',
        '--execution.estimate-cache-bytes',
        '0',
      ),
      /JSON-RPC\s+http:\/\/127\.0\.0\.1:(\d+)\//,
      120_000,
      join(o.datadir, '..', 'tracenode-serve.log'),
    ),
    startServer('floor', [...TSX, join(BENCH_DIR, 'floor.ts'), '--port', '0', '--key', API_KEY], FLOOR_READY),
    startServer('nodeFloor', [...TSX, join(BENCH_DIR, 'floor.ts'), '--port', '0', '--key', API_KEY, '--node'], FLOOR_READY),
  ]);
  for (const s of started) if (s.status === 'fulfilled') o.stops.push(s.value.stop);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  const [tracenode, floor, nodeFloor] = started.map((s) => (s as PromiseFulfilledResult<StartedServer>).value);

  const tnPort = tracenode.match[1];
  const anvilPort = new URL(o.anvilUrl).port;
  const tn = (headers: Record<string, string>): Endpoint => ({
    http: `http://127.0.0.1:${tnPort}/v3/${API_KEY}`,
    ws: `ws://127.0.0.1:${tnPort}/ws/v3/${API_KEY}`,
    headers,
  });
  const perNetwork = (e: Endpoint): Record<Network, Endpoint> => ({ mainnet: e, demo: e, starknet: e, controlled: e });
  const controlled: Endpoint = {
    http: `http://127.0.0.1:${tnPort}/v3/${CONTROLLED_KEY}`,
    ws: `ws://127.0.0.1:${tnPort}/ws/v3/${CONTROLLED_KEY}`,
    headers: CONTROLLED_HEADERS,
  };
  const endpoints: Endpoints = {
    // tracenode picks the network by Host name; the default network is the bench chain
    tracenode: { mainnet: tn({}), demo: tn({ host: `demo.localhost:${tnPort}` }), starknet: tn({ host: `starknet-mainnet.localhost:${tnPort}` }), controlled },
    anvil: perNetwork({ http: `http://127.0.0.1:${anvilPort}/`, ws: `ws://127.0.0.1:${anvilPort}/`, headers: {} }),
    floor: perNetwork({ http: `http://127.0.0.1:${floor.match[1]}/v3/${API_KEY}`, ws: `ws://127.0.0.1:${floor.match[1]}/ws/v3/${API_KEY}`, headers: {} }),
    nodeFloor: perNetwork({ http: `http://127.0.0.1:${nodeFloor.match[1]}/v3/${API_KEY}`, ws: '', headers: {} }), // HTTP only
  };
  const cpu: Record<ServerName, CpuClock> = {
    tracenode: () => processCpuSeconds(tracenode.proc.pid),
    anvil: o.anvilCpu,
    floor: () => processCpuSeconds(floor.proc.pid),
    nodeFloor: () => processCpuSeconds(nodeFloor.proc.pid),
  };
  return { endpoints, tracenode, ports: { tracenode: tnPort, anvil: anvilPort, floor: floor.match[1] }, cpu };
}
