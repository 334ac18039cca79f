/**
 * `npm run bench`: tracenode side by side with anvil and the transport floor, in one run.
 *
 *   npm run bench                                  # default sizes (see DEFAULTS), writes results + BENCHMARKS.md
 *   npm run bench -- --quick                       # small chain, a few seconds per case
 *   npm run bench -- --only eth_call,trace_filter  # cases whose name contains one of the substrings
 *   npm run bench -- --blocks 2000 --duration 10 --connections 32
 *
 * What it does (issue 8):
 *  1. Data: the `bench` chain generated on anvil (scripts/anvilChain.mjs), cached under
 *     bench/.cache/<key> (key: the generator's inputs — its source, the Solidity sources, block
 *     count, anvil and solc versions — and tracenode's datadir schema), then imported into
 *     tracenode (blocks/s, Mgas/s) next to raw @ethereumjs/vm executing the same blocks in memory
 *     (bench/rawExecution.ts). Both import figures are measured when the cache is built.
 *  2. Servers on 127.0.0.1: tracenode (`serve`, the bench chain as the default network, plus the
 *     demo chain and the Starknet bench chain as networks chosen by Host name when those cases
 *     run); anvil serving the same chain — the anvil instance that mined it (`keepRunning`); on a
 *     cached run the chain is mined again (the generator is deterministic) and anvil's head hash
 *     must equal the cached chain's; and the floor (bench/floor.ts).
 *  3. Every case runs against each server over HTTP keep-alive (autocannon) and WebSocket
 *     (bench/wsLoad.ts, one request in flight per socket), with the same concurrency, for a fixed
 *     duration after a warm-up; then once more with one connection over HTTP for the unloaded
 *     latency. Every answer is checked: against tracenode's answer fetched before the run, which is
 *     first cross-checked against anvil's (a fast wrong answer is an error, not a result).
 *  4. Memory: tracenode's RSS at rest, with 1,000 idle WebSocket connections, and the peak under load.
 *  5. Output: tables on the terminal (ratios first), bench/results/<date>.json, BENCHMARKS.md.
 *
 * Stops every server it started at the end, also on failure or Ctrl-C.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ANVIL_BIN, accountFor, buildAnvilChain, mappingSlot } from '../scripts/anvilChain.mjs';
import { floorAnswer } from './floor.js';
import { type LoadResult, openIdleSockets, Samples, wsLoad, wsOnce } from './wsLoad.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..');
const API_KEY = 'bench';
const SERVERS = ['tracenode', 'anvil', 'floor', 'nodeFloor'] as const;
type ServerName = (typeof SERVERS)[number];
type Transport = 'http' | 'ws';

// ---------------------------------------------------------------------------------------------
// options

export interface BenchOptions {
  /** Run only cases whose name contains one of these substrings (case-insensitive). */
  only?: string[];
  /** Small chain, short runs. */
  quick?: boolean;
  /** Chain height of the bench chain. */
  blocks?: number;
  /** Measured seconds per case, server and transport. */
  durationS?: number;
  /** Warm-up seconds before each measured run. */
  warmupS?: number;
  /** Seconds of the one-connection latency run. */
  probeS?: number;
  /** Concurrent connections (HTTP) and sockets (WebSocket). */
  connections?: number;
  /** Seconds of eth_blockNumber load on each server and transport before the first case (JIT, caches). */
  globalWarmupS?: number;
  /** Idle WebSocket connections opened for the memory figure (0: skip). */
  idleSockets?: number;
  /** Re-import even when the cache has the datadir (and re-measure import speed). */
  fresh?: boolean;
  /** Write bench/results/<date>.json. */
  writeResults?: boolean;
  /** Write BENCHMARKS.md (default: only for a full run without --only). */
  writeMarkdown?: boolean;
  /** Where the cache lives (default bench/.cache). */
  cacheDir?: string;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
}

/** Default sizes of a full run and of --quick. */
export const DEFAULTS = {
  full: { blocks: 10000, durationS: 4, warmupS: 1, probeS: 1.5, connections: 10, idleSockets: 1000, globalWarmupS: 2, starknet: ['--runs', '100'] },
  quick: { blocks: 40, durationS: 2, warmupS: 0.5, probeS: 0.5, connections: 10, idleSockets: 1000, globalWarmupS: 0.5, starknet: ['--quick', '--runs', '50'] },
} as const;

// ---------------------------------------------------------------------------------------------
// results

export interface ProbeResult {
  requests: number;
  p50: number;
  p99: number;
}

export interface ServerRun {
  http?: LoadResult;
  ws?: LoadResult;
  /** One connection, HTTP: unloaded latency. */
  c1?: ProbeResult;
  /** Size of the answer, bytes. */
  answerBytes?: number;
  /** What the answer was checked against during the run. */
  checkedAgainst?: string;
}

export interface CaseResult {
  name: string;
  issue: number;
  network: 'mainnet' | 'demo' | 'starknet';
  request: string;
  servers: Partial<Record<ServerName, ServerRun>>;
  /** tracenode's answer vs anvil's: 'equal', 'equal after …', 'differs: …', or why not compared. */
  crossCheck: string;
  /** Problems found before the run (an answer that fails its sanity check, transports that disagree). */
  problems: string[];
  note?: string;
}

export interface BenchReport {
  date: string;
  mode: 'full' | 'quick';
  settings: { blocks: number; durationS: number; warmupS: number; probeS: number; connections: number; only: string[] };
  machine: {
    cores: number;
    cpu: string;
    memoryGiB: number;
    node: string;
    anvil: string;
    os: string;
    loadAverage: { start: number[]; end: number[] };
    commit?: string;
  };
  chain: {
    key: string;
    head: number;
    headHash: string;
    transactions: number;
    cached: boolean;
    anvilBoot: string;
    rareAddress: string;
    rareBlocks: number[];
    heaviestBlock: number;
    heaviestBlockGasUsed: number;
    generateSeconds: number;
  };
  import?: {
    measuredAt: string;
    tracenode: { blocks: number; seconds: number; blocksPerSecond: number; mgasPerSecond: number };
    raw: { blocks: number; seconds: number; blocksPerSecond: number; mgasPerSecond: number; gasUsed: number };
    ratio: { blocks: number; mgas: number };
  };
  memory: { restMiB?: number; idleSockets?: number; idleSocketsOpen?: number; idleMiB?: number; underLoadMiB?: number };
  cases: CaseResult[];
  starknetBench?: {
    args: string[];
    rows: Array<{ query: string; events: string; medianMs: number; p99Ms: number; note: string }>;
    importLine?: string;
    seconds: number;
  };
  targets: Target[];
  seconds: number;
}

export interface Target {
  issue: number;
  target: string;
  measured: string;
  met: boolean | null;
  note?: string;
}

// ---------------------------------------------------------------------------------------------
// small helpers

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hex = (n: number | bigint) => `0x${n.toString(16)}`;
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

function sha(...parts: (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex').slice(0, 12);
}

/** JSON with object keys sorted: two answers are the same when these strings are equal. */
function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(',')}}`;
}

/** The first place two JSON values differ, for reports. */
function firstDifference(a: unknown, b: unknown, path = '$'): string | undefined {
  if (canonical(a) === canonical(b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length) return `${path}: ${a.length} items vs ${b.length}`;
    const keys = new Set([...Object.keys(a as object), ...Object.keys(b as object)]);
    for (const k of keys) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`);
      if (d) return d;
    }
  }
  const show = (x: unknown) => (x === undefined ? 'absent' : JSON.stringify(x).slice(0, 120));
  return `${path}: ${show(a)} vs ${show(b)}`;
}

/** Reads VmRSS of a process, MiB (Linux). */
function rssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** POST over a fresh connection; resolves with status and text. */
function httpPost(url: string, body: string, headers: Record<string, string> = {}, timeoutMs = 120_000): Promise<{ status: number; text: string }> {
  return new Promise((resolvePost, reject) => {
    const u = new URL(url);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolvePost({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

async function rpc(url: string, method: string, params: unknown, headers?: Record<string, string>): Promise<any> {
  const { status, text } = await httpPost(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), headers);
  if (status !== 200) throw new Error(`${method} on ${url}: HTTP ${status} ${text.slice(0, 200)}`);
  const r = JSON.parse(text);
  if (r.error) throw new Error(`${method} on ${url}: ${JSON.stringify(r.error)}`);
  return r.result;
}

// ---------------------------------------------------------------------------------------------
// child processes (all of them stopped on exit, also on failure)

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
function runCommand(
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

const TSX = ['--import', 'tsx'];

/** A long-running server child: waits for `ready` to match its output; stop() ends it. */
async function startServer(
  name: string,
  args: string[],
  ready: RegExp,
  timeoutMs = 60_000,
): Promise<{ proc: ChildProcess; match: RegExpExecArray; output: () => string; stop: () => Promise<void> }> {
  const proc = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  trackChild(proc);
  let out = '';
  const keep = (d: Buffer) => {
    out += d.toString();
    if (out.length > 50_000) out = out.slice(-20_000);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
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
    const m = ready.exec(out);
    if (m) return { proc, match: m, output: () => out, stop };
    if (exited) throw new Error(`${name} exited before it was ready:\n${out.slice(-3000)}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${name} not ready after ${timeoutMs / 1000} s:\n${out.slice(-3000)}`);
    }
    await sleep(50);
  }
}

// ---------------------------------------------------------------------------------------------
// load generators

interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  non2xx: number;
}
type Autocannon = (opts: Record<string, unknown>, cb: (err: Error | null, res: AutocannonResult) => void) => NodeJS.EventEmitter;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

interface Target0 {
  http: string;
  ws: string;
  headers: Record<string, string>;
}

/**
 * HTTP keep-alive load with autocannon: one run of warm-up + duration on the same connections;
 * throughput and latency count the answers that arrive inside the measured window (latencies from
 * autocannon's per-response event, sub-millisecond), correctness counts every answer.
 */
function httpLoad(o: {
  url: string;
  headers: Record<string, string>;
  body: string;
  verify: (t: string) => boolean;
  connections: number;
  durationS: number;
  warmupS?: number;
}): Promise<LoadResult> {
  const samples = new Samples();
  let firstMismatch: string | undefined;
  const warmupMs = (o.warmupS ?? 0) * 1000;
  return new Promise((resolveLoad, reject) => {
    const t0 = performance.now();
    const windowStart = t0 + warmupMs;
    const windowEnd = windowStart + o.durationS * 1000;
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
        verifyBody: (text: string) => {
          const ok = o.verify(text);
          if (!ok) firstMismatch ??= text.slice(0, 300);
          return ok;
        },
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
          mismatches: res.mismatches,
          non2xx: res.non2xx,
          ...(firstMismatch !== undefined ? { firstMismatch } : {}),
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
async function waitIdle(t: Target0): Promise<void> {
  const body = req('eth_blockNumber', []);
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

async function runLoad(
  transport: Transport,
  t: Target0,
  body: string,
  verify: (s: string) => boolean,
  connections: number,
  durationS: number,
  warmupS: number,
): Promise<LoadResult> {
  if (transport === 'http') {
    const r = await httpLoad({ url: t.http, headers: t.headers, body, verify, connections, durationS, warmupS });
    await waitIdle(t);
    return r;
  }
  return wsLoad({ url: t.ws, headers: t.headers, body, verify, connections, durationS, warmupS, timeoutMs: 30_000 });
}

// ---------------------------------------------------------------------------------------------
// cases

interface CaseDef {
  name: string;
  issue: number;
  network: 'mainnet' | 'demo' | 'starknet';
  anvil: boolean;
  /** The request (JSON text); every answer must be the same. */
  body: string;
  /** Returns a reason when tracenode's answer is not plausible (e.g. empty where results exist). */
  sanity?: (answer: any) => string | undefined;
  /** Removes what anvil adds and METHODS.md leaves out (documented per case). */
  normalizeAnvil?: (answer: any) => any;
  /**
   * What anvil is asked instead of `body` when it cannot take the same request (documented per
   * case); `normalizeAnvil` then turns its answer into the shape of tracenode's.
   */
  anvilBody?: string;
  /** Also measured against the node:http floor (HTTP): the cases bound by transport cost. */
  nodeFloor?: boolean;
  note?: string;
}

const CASE_NAMES = [
  'eth_blockNumber',
  'eth_getStorageAt latest',
  'eth_getStorageAt historic',
  'eth_getProof 1 key',
  'eth_getProof 10 keys',
  'eth_call view (balanceOf)',
  'eth_call heavy loop',
  'eth_call revert',
  'eth_getUncleByBlockNumberAndIndex (demo chain)',
  'trace_transaction (heaviest block)',
  'trace_block (heaviest block)',
  'trace_filter (rare address, whole chain)',
  'eth_getLogs (one contract, whole chain)',
  'starknet_getEvents selective',
  'starknet_getEvents broad (page 1)',
  'batch of 50',
] as const;

export function selectCases(only: string[] | undefined): string[] {
  if (!only || only.length === 0) return [...CASE_NAMES];
  const subs = only.map((s) => s.toLowerCase());
  return CASE_NAMES.filter((n) => subs.some((s) => n.toLowerCase().includes(s)));
}

/** The request a server is sent for a case. */
const bodyFor = (def: CaseDef, server: ServerName): string => (server === 'anvil' && def.anvilBody ? def.anvilBody : def.body);

/** anvil answers trace_filter over at most this many blocks (1.7.1: "block range too large, currently limited to 300"). */
const ANVIL_TRACE_FILTER_RANGE = 300;

const req = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

const isResult = (a: any) => (a && 'result' in a ? undefined : `no result: ${JSON.stringify(a?.error ?? a).slice(0, 200)}`);
const nonEmptyArray = (a: any) => isResult(a) ?? (Array.isArray(a.result) && a.result.length > 0 ? undefined : 'empty or not a list');

function ethCases(names: Set<string>, e: any, head: number, demoAvailable: boolean): CaseDef[] {
  const b = e.bench;
  const token: string = b.token;
  const holder: string = b.holder;
  const balanceSlot = mappingSlot(holder, 3); // Token.sol: slot 3 is balanceOf
  const historic = Math.max(3, head - 50); // anvil keeps the state of its last 64 blocks (--prune-history 64)
  // the bench's users: user0 is the holder; all got ALPHA and BETA in block 3
  const users = Array.from({ length: 10 }, (_, i) => accountFor(`user${i}`).address);
  if (users[0] !== holder.toLowerCase()) throw new Error(`bench users: user0 ${users[0]} is not the holder ${holder}`);
  const tokenB: string = e.contracts.tokenB;
  const out: CaseDef[] = [];
  const add = (c: CaseDef) => {
    if (names.has(c.name)) out.push(c);
  };
  add({
    name: 'eth_blockNumber',
    issue: 8,
    network: 'mainnet',
    anvil: true,
    nodeFloor: true,
    body: req('eth_blockNumber', []),
    sanity: (a) => isResult(a) ?? (Number(a.result) === head ? undefined : `head ${a.result}`),
  });
  const nonZeroWord = (a: any) => isResult(a) ?? (/^0x[0-9a-f]{64}$/.test(a.result) && BigInt(a.result) > 0n ? undefined : `not a non-zero word: ${a.result}`);
  add({
    name: 'eth_getStorageAt latest',
    issue: 3,
    network: 'mainnet',
    anvil: true,
    nodeFloor: true,
    body: req('eth_getStorageAt', [token, balanceSlot, 'latest']),
    sanity: nonZeroWord,
    note: 'Token.balanceOf[holder] (a mapping slot)',
  });
  add({
    name: 'eth_getStorageAt historic',
    issue: 3,
    network: 'mainnet',
    anvil: true,
    body: req('eth_getStorageAt', [token, balanceSlot, hex(historic)]),
    sanity: nonZeroWord,
    note: `block ${historic} = head − 50: anvil keeps only its last 64 states; tracenode reads every block the same way`,
  });
  add({
    name: 'eth_getProof 1 key',
    issue: 3,
    network: 'mainnet',
    anvil: true,
    body: req('eth_getProof', [token, [balanceSlot], 'latest']),
    sanity: (a) => isResult(a) ?? (a.result.storageProof?.length === 1 ? undefined : 'no storage proof'),
  });
  const keys10 = users.map((u) => mappingSlot(u, 3));
  add({
    name: 'eth_getProof 10 keys',
    issue: 3,
    network: 'mainnet',
    anvil: true,
    body: req('eth_getProof', [token, keys10, 'latest']),
    sanity: (a) => isResult(a) ?? (a.result.storageProof?.length === 10 ? undefined : 'not 10 storage proofs'),
    note: 'ALPHA balances of 10 users',
  });
  add({
    name: 'eth_call view (balanceOf)',
    issue: 4,
    network: 'mainnet',
    anvil: true,
    body: req('eth_call', [{ to: token, data: b.balanceOfCalldata }, 'latest']),
    sanity: nonZeroWord,
  });
  add({
    name: 'eth_call heavy loop',
    issue: 4,
    network: 'mainnet',
    anvil: true,
    body: req('eth_call', [{ to: b.heavyCall.to, data: b.heavyCall.data }, 'latest']),
    sanity: nonZeroWord,
    note: b.heavyCall.note,
  });
  add({
    name: 'eth_call revert',
    issue: 4,
    network: 'mainnet',
    anvil: true,
    body: req('eth_call', [{ from: b.revertingCall.from, to: b.revertingCall.to, data: b.revertingCall.data }, 'latest']),
    sanity: (a) => (a?.error?.code === 3 && typeof a.error.data === 'string' ? undefined : `not a code-3 revert: ${JSON.stringify(a).slice(0, 200)}`),
    note: b.revertingCall.note,
  });
  if (demoAvailable) {
    add({
      name: 'eth_getUncleByBlockNumberAndIndex (demo chain)',
      issue: 8,
      network: 'demo',
      anvil: false,
      body: req('eth_getUncleByBlockNumberAndIndex', ['0xb', '0x1']),
      sanity: (a) =>
        isResult(a) ?? (a.result?.hash === '0xc71ebe23438d05f36a8f9312f249291ed500c573322ef17b48b276b9a6a49814' ? undefined : `uncle hash ${a.result?.hash}`),
      note: 'the anvil chain has no uncles: the demo chain (fixtures/demo, block 11, uncle 1) on tracenode, vs the floor only',
    });
  }
  add({
    name: 'trace_transaction (heaviest block)',
    issue: 5,
    network: 'mainnet',
    anvil: true,
    body: req('trace_transaction', [b.heaviestBlockTx]),
    sanity: nonEmptyArray,
  });
  add({
    name: 'trace_block (heaviest block)',
    issue: 5,
    network: 'mainnet',
    anvil: true,
    body: req('trace_block', [hex(b.heaviestBlock)]),
    sanity: nonEmptyArray,
    note: `block ${b.heaviestBlock}, ${b.heaviestBlockGasUsed} gas`,
  });
  add({
    name: 'trace_filter (rare address, whole chain)',
    issue: 5,
    network: 'mainnet',
    anvil: true,
    body: req('trace_filter', [{ fromBlock: '0x1', toBlock: hex(head), toAddress: [e.rareAddress] }]),
    // anvil refuses ranges over 300 blocks: it gets the same question as one batch of 300-block
    // windows, and its answers, concatenated in order, must equal tracenode's single answer.
    anvilBody: JSON.stringify(
      Array.from({ length: Math.ceil(head / ANVIL_TRACE_FILTER_RANGE) }, (_, i) => ({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'trace_filter',
        params: [
          { fromBlock: hex(1 + i * ANVIL_TRACE_FILTER_RANGE), toBlock: hex(Math.min(head, (i + 1) * ANVIL_TRACE_FILTER_RANGE)), toAddress: [e.rareAddress] },
        ],
      })),
    ),
    normalizeAnvil: (a) =>
      Array.isArray(a) && a.every((x) => Array.isArray(x?.result))
        ? { jsonrpc: '2.0', id: 1, result: [...a].sort((x, y) => x.id - y.id).flatMap((x) => x.result) }
        : a,
    sanity: (a) => {
      const r = nonEmptyArray(a);
      if (r) return r;
      const blocks = [...new Set((a.result as Array<{ blockNumber: number }>).map((t) => t.blockNumber))].sort((x, y) => x - y);
      return blocks.join() === (e.rareBlocks as number[]).join() ? undefined : `traces in blocks ${blocks.join()}, expected ${e.rareBlocks.join()}`;
    },
    note: `toAddress ${e.rareAddress}: ${e.rareBlocks.length} blocks of ${head}; anvil is sent a batch of ${ANVIL_TRACE_FILTER_RANGE}-block windows (its range cap)`,
  });
  add({
    name: 'eth_getLogs (one contract, whole chain)',
    issue: 8,
    network: 'mainnet',
    anvil: true,
    // The factory: one Created log per deployment, spread over the whole chain (~1,300 on 10,000
    // blocks). The token contracts log more than the 10,000-result cap over a chain that long.
    body: req('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head), address: e.contracts.factory }]),
    sanity: nonEmptyArray,
    // anvil adds `blockTimestamp` to logs (a newer execution-apis field): ignored if tracenode leaves it out
    normalizeAnvil: (a) => (Array.isArray(a?.result) ? { ...a, result: a.result.map(({ blockTimestamp: _t, ...log }: Record<string, unknown>) => log) } : a),
    note: 'Factory: every Created log (one per deployment)',
  });
  // 10 users × 5 reads at latest
  if (names.has('batch of 50')) {
    const batch: unknown[] = [];
    let id = 1;
    for (const u of users) {
      batch.push({ jsonrpc: '2.0', id: id++, method: 'eth_getBalance', params: [u, 'latest'] });
      batch.push({ jsonrpc: '2.0', id: id++, method: 'eth_getTransactionCount', params: [u, 'latest'] });
      batch.push({ jsonrpc: '2.0', id: id++, method: 'eth_getStorageAt', params: [token, mappingSlot(u, 3), 'latest'] });
      batch.push({ jsonrpc: '2.0', id: id++, method: 'eth_getStorageAt', params: [tokenB, mappingSlot(u, 3), 'latest'] });
      batch.push({ jsonrpc: '2.0', id: id++, method: 'eth_call', params: [{ to: token, data: `0x70a08231${u.slice(2).padStart(64, '0')}` }, 'latest'] });
    }
    out.push({
      name: 'batch of 50',
      issue: 8,
      network: 'mainnet',
      anvil: true,
      body: JSON.stringify(batch),
      sanity: (a) => (Array.isArray(a) && a.length === 50 && a.every((x) => 'result' in x) ? undefined : 'not 50 results'),
      note: '10 accounts × (eth_getBalance, eth_getTransactionCount, 2 × eth_getStorageAt, eth_call balanceOf) at latest',
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// data: the bench chain, tracenode's datadir, the demo chain, the Starknet bench chain

function fileHash(paths: string[]): string {
  const h = createHash('sha256');
  for (const p of paths) {
    h.update(relative(REPO, p));
    h.update(readFileSync(p));
  }
  return h.digest('hex').slice(0, 12);
}

function schemaVersion(): string {
  const m = /SCHEMA_VERSION\s*=\s*(\d+)/.exec(readFileSync(join(REPO, 'src/db/keys.ts'), 'utf8'));
  return m ? m[1] : '?';
}

function anvilVersion(): string {
  try {
    const first = execFileSync(ANVIL_BIN, ['--version'], { encoding: 'utf8' }).split('\n')[0].trim();
    return first.replace(/^anvil Version:\s*/i, 'anvil ');
  } catch {
    return 'unknown';
  }
}

/** The generator's inputs: its source, the Solidity sources, the scenario and height, anvil and solc. */
function chainKey(blocks: number): string {
  const solDir = join(REPO, 'scripts/anvil');
  const sols = readdirSync(solDir)
    .filter((f) => f.endsWith('.sol'))
    .sort()
    .map((f) => join(solDir, f));
  const pkgVersion = (p: string) => {
    try {
      return (JSON.parse(readFileSync(join(REPO, 'node_modules', p, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      return '?';
    }
  };
  return `bench-${blocks}-${sha(fileHash([join(REPO, 'scripts/anvilChain.mjs'), ...sols]), pkgVersion('@foundry-rs/anvil-linux-amd64'), pkgVersion('solc'), `schema${schemaVersion()}`)}`;
}

const cli = (...args: string[]) => [...TSX, join(REPO, 'src/cli.ts'), ...args];

function parseImportLine(text: string): { blocks: number; seconds: number; blocksPerSecond: number; mgasPerSecond: number } | undefined {
  const m = /import: done, (\d+) blocks imported, \d+ already present, in ([\d.]+) s \(([\d.]+) blocks\/s, ([\d.]+) Mgas\/s\)/.exec(text);
  return m ? { blocks: Number(m[1]), seconds: Number(m[2]), blocksPerSecond: Number(m[3]), mgasPerSecond: Number(m[4]) } : undefined;
}

/** init + import into a fresh datadir; returns tracenode's own import figures. */
async function importChain(datadir: string, genesis: string, rlp: string, blocks: number, log: (l: string) => void) {
  rmSync(datadir, { recursive: true, force: true });
  const init = await runCommand(process.execPath, cli('init', '--datadir', datadir, '--genesis', genesis), { timeoutMs: 120_000 });
  if (init.code !== 0) throw new Error(`tracenode init failed:\n${init.stderr || init.stdout}`);
  let last = 0;
  const imp = await runCommand(process.execPath, cli('import', '--datadir', datadir, rlp), {
    timeoutMs: Math.max(15 * 60_000, blocks * 3000),
    onLine: (l) => {
      if (Date.now() - last > 15_000 || l.includes('done')) {
        last = Date.now();
        log(`  ${l.trim()}`);
      }
    },
  });
  if (imp.code !== 0) throw new Error(`tracenode import failed:\n${(imp.stderr || imp.stdout).slice(-3000)}`);
  const figures = parseImportLine(imp.stderr + imp.stdout);
  if (!figures) throw new Error(`tracenode import: no summary line in its output:\n${imp.stderr.slice(-2000)}`);
  return figures;
}

interface ChainReady {
  key: string;
  dir: string;
  datadir: string;
  expected: any;
  cached: boolean;
  anvil: { url: string; stop: () => Promise<void> };
  anvilBoot: string;
  generateSeconds: number;
  importFigures?: BenchReport['import'];
}

async function prepareChain(cacheRoot: string, blocks: number, fresh: boolean, log: (l: string) => void): Promise<ChainReady> {
  const key = chainKey(blocks);
  const dir = join(cacheRoot, key);
  const chainDir = join(dir, 'chain');
  const datadir = join(dir, 'tracenode');
  const importFile = join(dir, 'import.json');
  const haveChain = existsSync(join(chainDir, 'expected.json')) && existsSync(join(chainDir, 'chain.rlp'));
  const haveImport = haveChain && existsSync(importFile) && existsSync(datadir) && !fresh;
  mkdirSync(dir, { recursive: true });

  // anvil: the instance that mines the chain keeps serving it.
  const t0 = performance.now();
  let anvil: ChainReady['anvil'];
  let anvilBoot: string;
  if (haveChain) {
    log(`chain: cached in ${relative(REPO, chainDir)}; mining it again on anvil (deterministic) for anvil to serve…`);
    const scratch = mkdtempSync(join(tmpdir(), 'tracenode-bench-anvil-'));
    try {
      const built = await buildAnvilChain({ outDir: scratch, scenario: 'bench', blocks, keepRunning: true });
      const cachedHead = JSON.parse(readFileSync(join(chainDir, 'expected.json'), 'utf8')).head;
      const again = JSON.parse(readFileSync(built.expectedPath, 'utf8')).head;
      if (again.hash !== cachedHead.hash) {
        await built.anvil!.stop();
        throw new Error(
          `anvil mined a different chain than the cached one (head ${again.hash} vs ${cachedHead.hash}): remove ${relative(REPO, dir)} and run again`,
        );
      }
      anvil = built.anvil!;
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    anvilBoot = 'the anvil instance that re-mined the cached chain (same head hash) keeps serving it (buildAnvilChain keepRunning)';
  } else {
    log(`chain: generating ${blocks} blocks on anvil into ${relative(REPO, chainDir)}…`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(chainDir, { recursive: true });
    const built = await buildAnvilChain({ outDir: chainDir, scenario: 'bench', blocks, keepRunning: true, log: (m) => log(`  ${m}`) });
    anvil = built.anvil!;
    anvilBoot = 'the anvil instance that mined the chain keeps serving it (buildAnvilChain keepRunning)';
  }
  const generateSeconds = (performance.now() - t0) / 1000;
  log(`chain: anvil ready at ${anvil.url} (${generateSeconds.toFixed(0)} s)`);
  const expected = JSON.parse(readFileSync(join(chainDir, 'expected.json'), 'utf8'));

  let importFigures: BenchReport['import'];
  try {
    if (haveImport) {
      importFigures = JSON.parse(readFileSync(importFile, 'utf8'));
      log(`import: cached datadir (figures measured ${importFigures?.measuredAt})`);
    } else {
      rmSync(importFile, { force: true });
      log(`import: tracenode import of ${blocks} blocks…`);
      const genesis = join(chainDir, 'genesis.json');
      const rlp = join(chainDir, 'chain.rlp');
      const tn = await importChain(datadir, genesis, rlp, blocks, log);
      log(`import: tracenode ${tn.blocksPerSecond} blocks/s, ${tn.mgasPerSecond} Mgas/s; raw @ethereumjs/vm on the same blocks…`);
      const raw = await runCommand(process.execPath, [...TSX, join(HERE, 'rawExecution.ts'), genesis, rlp, '--json'], {
        timeoutMs: Math.max(15 * 60_000, blocks * 3000),
      });
      if (raw.code !== 0) throw new Error(`raw execution failed:\n${raw.stderr.slice(-3000)}`);
      const r = JSON.parse(raw.stdout.trim().split('\n').pop() as string);
      importFigures = {
        measuredAt: new Date().toISOString(),
        tracenode: tn,
        raw: {
          blocks: r.blocks,
          seconds: round(r.execSeconds, 1),
          blocksPerSecond: round(r.blocksPerSecond, 1),
          mgasPerSecond: round(r.mgasPerSecond),
          gasUsed: r.gasUsed,
        },
        ratio: { blocks: round(tn.blocksPerSecond / r.blocksPerSecond), mgas: round(tn.mgasPerSecond / r.mgasPerSecond) },
      };
      writeFileSync(importFile, `${JSON.stringify(importFigures, null, 1)}\n`);
      log(`import: raw ${importFigures.raw.blocksPerSecond} blocks/s, ${importFigures.raw.mgasPerSecond} Mgas/s → tracenode/raw ${importFigures.ratio.blocks}`);
    }
  } catch (err) {
    await anvil.stop();
    throw err;
  }
  return { key, dir, datadir, expected, cached: haveImport, anvil, anvilBoot, generateSeconds, importFigures };
}

/** The demo chain (fixtures/demo, which has uncles) imported into the cache. */
async function prepareDemo(cacheRoot: string, log: (l: string) => void): Promise<string> {
  const genesis = join(REPO, 'fixtures/demo/genesis.json');
  const rlp = join(REPO, 'fixtures/demo/chain.rlp');
  const dir = join(cacheRoot, `demo-${sha(fileHash([genesis, rlp]), `schema${schemaVersion()}`)}`);
  const datadir = join(dir, 'tracenode');
  if (existsSync(join(dir, 'done'))) return datadir;
  log('demo chain: importing fixtures/demo…');
  mkdirSync(dir, { recursive: true });
  await importChain(datadir, genesis, rlp, 64, () => {});
  writeFileSync(join(dir, 'done'), new Date().toISOString());
  return datadir;
}

/** Runs bench/starknetEvents.ts (its chain kept in the cache) and parses its table. */
async function runStarknetBench(
  cacheRoot: string,
  quick: boolean,
  log: (l: string) => void,
): Promise<{ datadir: string; result: NonNullable<BenchReport['starknetBench']> }> {
  const script = join(HERE, 'starknetEvents.ts');
  const mode = quick ? DEFAULTS.quick.starknet : DEFAULTS.full.starknet;
  const dir = join(cacheRoot, `starknet-${quick ? 'quick' : 'full'}-${sha(fileHash([script]), `schema${schemaVersion()}`)}`);
  const datadir = join(dir, 'datadir');
  if (!existsSync(join(dir, 'done'))) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const args = [...mode, '--keep', datadir];
  log(`starknet: bench/starknetEvents.ts ${args.join(' ')}…`);
  const t0 = performance.now();
  const r = await runCommand(process.execPath, [...TSX, script, ...args], { timeoutMs: 30 * 60_000 });
  if (r.code !== 0) throw new Error(`bench/starknetEvents.ts failed:\n${(r.stderr || r.stdout).slice(-3000)}`);
  writeFileSync(join(dir, 'done'), new Date().toISOString());
  const rows: NonNullable<BenchReport['starknetBench']>['rows'] = [];
  for (const line of r.stdout.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 7 || !/^[\d.]+$/.test(cells[3] ?? '')) continue;
    rows.push({ query: cells[1], events: cells[2], medianMs: Number(cells[3]), p99Ms: Number(cells[4]), note: cells[5] });
  }
  if (rows.length === 0) throw new Error(`bench/starknetEvents.ts: no table in its output:\n${r.stdout.slice(-2000)}`);
  const importLine = r.stdout.split('\n').find((l) => l.startsWith('import:'));
  // The recorded arguments name the datadir relative to the repository: results files are committed.
  const recorded = [...mode, '--keep', relative(REPO, datadir)];
  return { datadir, result: { args: recorded, rows, importLine, seconds: round((performance.now() - t0) / 1000, 1) } };
}

// ---------------------------------------------------------------------------------------------
// the run

export async function runBench(options: BenchOptions = {}): Promise<BenchReport> {
  const started = performance.now();
  const sink = options.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const log = (l: string) => sink(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${l}`);
  const mode = options.quick ? 'quick' : 'full';
  const d = DEFAULTS[mode];
  const settings = {
    blocks: options.blocks ?? d.blocks,
    durationS: options.durationS ?? d.durationS,
    warmupS: options.warmupS ?? d.warmupS,
    probeS: options.probeS ?? d.probeS,
    connections: options.connections ?? d.connections,
    only: options.only ?? [],
  };
  const idleSockets = options.idleSockets ?? d.idleSockets;
  const cacheRoot = options.cacheDir ?? join(HERE, '.cache');
  mkdirSync(cacheRoot, { recursive: true });
  const names = new Set(selectCases(options.only));
  if (names.size === 0) throw new Error(`--only ${settings.only.join(',')}: no case matches (cases: ${CASE_NAMES.join('; ')})`);
  const wantDemo = [...names].some((n) => n.includes('demo chain'));
  const wantStarknet = [...names].some((n) => n.startsWith('starknet'));

  let commit: string | undefined;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
  } catch {
    commit = undefined;
  }
  const machine: BenchReport['machine'] = {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    anvil: anvilVersion(),
    os: `${process.platform} ${release()}`,
    loadAverage: { start: loadavg().map((x) => round(x)), end: [] },
    commit,
  };
  log(
    `bench: ${mode}, ${names.size} cases, ${settings.connections} connections, ${settings.durationS} s (+${settings.warmupS} s warm-up) per run; load average ${machine.loadAverage.start.join(' ')}`,
  );

  // Servers and anything else to stop, newest first.
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    while (stops.length) {
      const s = stops.pop()!;
      await s().catch(() => {});
    }
  };
  const onSignal = () => {
    void stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    // Starknet first: its bench holds the Starknet datadir's LevelDB lock while it runs.
    let starknet: Awaited<ReturnType<typeof runStarknetBench>> | undefined;
    if (wantStarknet) starknet = await runStarknetBench(cacheRoot, mode === 'quick', log);
    const demoDir = wantDemo ? await prepareDemo(cacheRoot, log) : undefined;
    const chain = await prepareChain(cacheRoot, settings.blocks, options.fresh ?? false, log);
    stops.push(chain.anvil.stop);
    const e = chain.expected;
    const head: number = e.head.number;

    // servers
    const networks = [demoDir ? `demo=${demoDir}` : '', starknet ? `starknet-mainnet=${starknet.datadir}` : ''].filter(Boolean).join(',');
    const tn = await startServer(
      'tracenode',
      cli('serve', '--datadir', chain.datadir, ...(networks ? ['--networks', networks] : []), '--api-keys', API_KEY, '--port', '0', '--log-level', 'warn'),
      /JSON-RPC\s+http:\/\/127\.0\.0\.1:(\d+)\//,
      120_000,
    );
    stops.push(tn.stop);
    const floor = await startServer('floor', [...TSX, join(HERE, 'floor.ts'), '--port', '0', '--key', API_KEY], /listening on http:\/\/127\.0\.0\.1:(\d+)/);
    stops.push(floor.stop);
    const nodeFloor = await startServer(
      'nodeFloor',
      [...TSX, join(HERE, 'floor.ts'), '--port', '0', '--key', API_KEY, '--node'],
      /listening on http:\/\/127\.0\.0\.1:(\d+)/,
    );
    stops.push(nodeFloor.stop);
    const tnPort = tn.match[1];
    const anvilPort = new URL(chain.anvil.url).port;
    const targets: Record<ServerName, Record<CaseDef['network'], Target0>> = {
      tracenode: {
        mainnet: { http: `http://127.0.0.1:${tnPort}/v3/${API_KEY}`, ws: `ws://127.0.0.1:${tnPort}/ws/v3/${API_KEY}`, headers: {} },
        demo: {
          http: `http://127.0.0.1:${tnPort}/v3/${API_KEY}`,
          ws: `ws://127.0.0.1:${tnPort}/ws/v3/${API_KEY}`,
          headers: { host: `demo.localhost:${tnPort}` },
        },
        starknet: {
          http: `http://127.0.0.1:${tnPort}/v3/${API_KEY}`,
          ws: `ws://127.0.0.1:${tnPort}/ws/v3/${API_KEY}`,
          headers: { host: `starknet-mainnet.localhost:${tnPort}` },
        },
      },
      anvil: {} as Record<CaseDef['network'], Target0>,
      floor: {} as Record<CaseDef['network'], Target0>,
      nodeFloor: {} as Record<CaseDef['network'], Target0>,
    };
    for (const net of ['mainnet', 'demo', 'starknet'] as const) {
      targets.anvil[net] = { http: `http://127.0.0.1:${anvilPort}/`, ws: `ws://127.0.0.1:${anvilPort}/`, headers: {} };
      targets.floor[net] = { http: `http://127.0.0.1:${floor.match[1]}/v3/${API_KEY}`, ws: `ws://127.0.0.1:${floor.match[1]}/ws/v3/${API_KEY}`, headers: {} };
      targets.nodeFloor[net] = { http: `http://127.0.0.1:${nodeFloor.match[1]}/v3/${API_KEY}`, ws: '', headers: {} }; // HTTP only
    }

    // Same chain on both: head hashes must agree with the generator's.
    const tnHead = await rpc(targets.tracenode.mainnet.http, 'eth_getBlockByNumber', ['latest', false]);
    const anvilHead = await rpc(targets.anvil.mainnet.http, 'eth_getBlockByNumber', ['latest', false]);
    if (tnHead.hash !== e.head.hash || anvilHead.hash !== e.head.hash) {
      throw new Error(
        `head hashes differ: expected ${e.head.hash}, tracenode ${tnHead.hash}, anvil ${anvilHead.hash} (remove ${relative(REPO, chain.dir)} or run with --fresh)`,
      );
    }
    log(`servers: tracenode :${tnPort} (pid ${tn.proc.pid}), anvil :${anvilPort}, floor :${floor.match[1]}; head ${head} ${e.head.hash.slice(0, 18)}… on both`);

    // memory at rest, then with idle sockets
    const memory: BenchReport['memory'] = {};
    await sleep(1000);
    memory.restMiB = round(rssMiB(tn.proc.pid) ?? 0, 1);
    if (idleSockets > 0) {
      const idle = await openIdleSockets(targets.tracenode.mainnet.ws, idleSockets);
      await sleep(1500);
      memory.idleSockets = idleSockets;
      memory.idleSocketsOpen = idle.open();
      memory.idleMiB = round(rssMiB(tn.proc.pid) ?? 0, 1);
      await idle.close();
      log(`memory: RSS at rest ${memory.restMiB} MiB, with ${memory.idleSocketsOpen}/${idleSockets} idle WebSockets ${memory.idleMiB} MiB`);
    }

    // one warm-up for all: the first case should not pay for JIT compilation and cold caches
    const globalWarmupS = options.globalWarmupS ?? d.globalWarmupS;
    if (globalWarmupS > 0) {
      const body = req('eth_blockNumber', []);
      for (const s of SERVERS) {
        for (const tr of ['http', 'ws'] as const) {
          if (targets[s].mainnet[tr] === '') continue; // the node floor has no WebSocket
          await runLoad(tr, targets[s].mainnet, body, () => true, settings.connections, globalWarmupS, 0);
        }
      }
    }

    // cases
    const defs = ethCases(names, e, head, demoDir !== undefined);
    if (starknet) {
      const sn = targets.tracenode.starknet;
      const first = await rpc(sn.http, 'starknet_getEvents', { filter: { chunk_size: 1 } }, sn.headers);
      const ev = first.events[0];
      if (names.has('starknet_getEvents selective')) {
        defs.push({
          name: 'starknet_getEvents selective',
          issue: 7,
          network: 'starknet',
          anvil: false,
          body: req('starknet_getEvents', { filter: { address: ev.from_address, keys: [[ev.keys[0]]], chunk_size: 1024 } }),
          sanity: (a) => isResult(a) ?? (a.result.events.length > 0 && !a.result.continuation_token ? undefined : 'no events, or more than one page'),
          note: 'the first event’s contract + its keys[0], whole range (the Starknet bench chain, served by tracenode)',
        });
      }
      if (names.has('starknet_getEvents broad (page 1)')) {
        defs.push({
          name: 'starknet_getEvents broad (page 1)',
          issue: 7,
          network: 'starknet',
          anvil: false,
          body: req('starknet_getEvents', { filter: { chunk_size: 1024 } }),
          sanity: (a) => isResult(a) ?? (a.result.events.length === 1024 && a.result.continuation_token ? undefined : 'not a full page with a token'),
          note: 'no filter, chunk_size 1024: the first page',
        });
      }
    }
    defs.sort((a, b) => CASE_NAMES.indexOf(a.name as (typeof CASE_NAMES)[number]) - CASE_NAMES.indexOf(b.name as (typeof CASE_NAMES)[number]));

    // RSS under load: sampled while tracenode is being measured
    let peak = 0;
    let sampling = false;
    const sampler = setInterval(() => {
      if (!sampling) return;
      const r = rssMiB(tn.proc.pid);
      if (r !== undefined && r > peak) peak = r;
    }, 200);
    stops.push(async () => clearInterval(sampler));

    const cases: CaseResult[] = [];
    for (const def of defs) {
      const servers: ServerName[] = ['floor', ...(def.nodeFloor ? (['nodeFloor'] as const) : []), 'tracenode', ...(def.anvil ? (['anvil'] as const) : [])];
      const result: CaseResult = {
        name: def.name,
        issue: def.issue,
        network: def.network,
        request: def.body.length > 400 ? `${def.body.slice(0, 400)}…` : def.body,
        servers: {},
        crossCheck: def.anvil ? '' : 'not compared (no anvil counterpart)',
        problems: [],
        ...(def.note ? { note: def.note } : {}),
      };
      cases.push(result);
      log(`case: ${def.name}`);

      // Expected answers, fetched once before the run.
      const tnT = targets.tracenode[def.network];
      const tnHttp = await httpPost(tnT.http, def.body, tnT.headers);
      let tnAnswer: any;
      try {
        tnAnswer = JSON.parse(tnHttp.text);
      } catch {
        tnAnswer = undefined;
      }
      if (tnHttp.status !== 200 || tnAnswer === undefined) result.problems.push(`tracenode: HTTP ${tnHttp.status} ${tnHttp.text.slice(0, 200)}`);
      const insane = def.sanity?.(tnAnswer);
      if (insane) result.problems.push(`tracenode's answer: ${insane}`);
      const expectedCanon = canonical(tnAnswer);

      const verifiers: Record<ServerName, Partial<Record<Transport, (t: string) => boolean>>> = { tracenode: {}, anvil: {}, floor: {}, nodeFloor: {} };
      const makeVerify = (bytes: string, canon: string, normalize?: (a: any) => any) => (text: string) => {
        if (text === bytes) return true;
        try {
          const a = JSON.parse(text);
          return canonical(normalize ? normalize(a) : a) === canon;
        } catch {
          return false;
        }
      };
      for (const s of servers) {
        const t = targets[s][def.network];
        const run: ServerRun = {};
        result.servers[s] = run;
        for (const tr of ['http', 'ws'] as const) {
          if (tr === 'ws' && s === 'nodeFloor') continue;
          const body = bodyFor(def, s);
          const text = tr === 'http' ? (s === 'tracenode' ? tnHttp.text : (await httpPost(t.http, body, t.headers)).text) : await wsOnce(t.ws, body, t.headers);
          let parsed: any;
          try {
            parsed = JSON.parse(text);
          } catch {
            result.problems.push(`${s} ${tr}: not JSON: ${text.slice(0, 200)}`);
            verifiers[s][tr] = () => false;
            continue;
          }
          if (tr === 'http') run.answerBytes = Buffer.byteLength(text);
          if (s === 'floor' || s === 'nodeFloor') {
            const want = floorAnswer(def.body);
            if (text !== want) result.problems.push(`${s} ${tr}: ${text.slice(0, 100)} is not its constant`);
            verifiers[s][tr] = (x) => x === want;
            run.checkedAgainst = 'its constant answer';
          } else if (s === 'tracenode') {
            if (tr === 'ws' && canonical(parsed) !== expectedCanon)
              result.problems.push(`tracenode: WebSocket answer differs from HTTP: ${firstDifference(parsed, tnAnswer)}`);
            verifiers.tracenode[tr] = makeVerify(text, expectedCanon);
            run.checkedAgainst = "tracenode's answer fetched before the run";
          } else {
            // anvil's answer as it is, else without the fields anvil adds (the case's normalizer)
            let norm: ((a: any) => any) | undefined;
            let diff = firstDifference(parsed, tnAnswer);
            if (diff && def.normalizeAnvil && !firstDifference(def.normalizeAnvil(parsed), tnAnswer)) {
              norm = def.normalizeAnvil;
              diff = undefined;
            }
            // For an error, code and data must agree; messages may differ (anvil appends decoded text).
            const errorsAgree = parsed?.error && tnAnswer?.error && parsed.error.code === tnAnswer.error.code && parsed.error.data === tnAnswer.error.data;
            if (!diff || errorsAgree) {
              if (tr === 'http')
                result.crossCheck = diff
                  ? `equal code and data (messages: anvil "${parsed.error.message}", tracenode "${tnAnswer.error.message}")`
                  : norm
                    ? 'equal (after removing anvil-only fields)'
                    : 'equal';
              verifiers.anvil[tr] = diff ? makeVerify(text, canonical(parsed)) : makeVerify(text, expectedCanon, norm);
              run.checkedAgainst = diff ? "anvil's own first answer (same code and data as tracenode's)" : "tracenode's answer (cross-checked)";
            } else {
              if (tr === 'http') result.crossCheck = `differs: ${diff}`;
              verifiers.anvil[tr] = makeVerify(text, canonical(parsed));
              run.checkedAgainst = "anvil's own first answer (it differs from tracenode's)";
            }
          }
        }
      }

      // Load: per transport, each server in turn (floor, tracenode, anvil), same settings.
      for (const tr of ['http', 'ws'] as const) {
        for (const s of servers) {
          const verify = verifiers[s][tr];
          if (!verify) continue;
          sampling = s === 'tracenode';
          const r = await runLoad(tr, targets[s][def.network], bodyFor(def, s), verify, settings.connections, settings.durationS, settings.warmupS);
          sampling = false;
          result.servers[s]![tr] = roundLoad(r);
          log(
            `  ${tr.padEnd(4)} ${s.padEnd(9)} ${fmtRps(r.rps).padStart(8)} req/s  p50 ${fmtMs(r.p50)} ms  p99 ${fmtMs(r.p99)} ms${badCount(r) ? `  ERRORS ${badCount(r)} ${r.firstMismatch ?? ''}` : ''}`,
          );
        }
      }
      // Unloaded latency: one connection, HTTP.
      for (const s of servers) {
        const verify = verifiers[s].http;
        if (!verify || settings.probeS <= 0) continue;
        const r = await httpLoad({
          url: targets[s][def.network].http,
          headers: targets[s][def.network].headers,
          body: bodyFor(def, s),
          verify,
          connections: 1,
          durationS: settings.probeS,
        });
        await waitIdle(targets[s][def.network]);
        result.servers[s]!.c1 = { requests: r.requests, p50: round(r.p50, 3), p99: round(r.p99, 3) };
        if (badCount(r)) result.problems.push(`${s}: ${badCount(r)} bad answers in the one-connection run: ${r.firstMismatch ?? ''}`);
      }
    }
    clearInterval(sampler);
    memory.underLoadMiB = round(peak, 1);

    machine.loadAverage.end = loadavg().map((x) => round(x));
    const report: BenchReport = {
      date: new Date().toISOString(),
      mode,
      settings,
      machine,
      chain: {
        key: chain.key,
        head,
        headHash: e.head.hash,
        transactions: e.txCount,
        cached: chain.cached,
        anvilBoot: chain.anvilBoot,
        rareAddress: e.rareAddress,
        rareBlocks: e.rareBlocks,
        heaviestBlock: e.bench.heaviestBlock,
        heaviestBlockGasUsed: e.bench.heaviestBlockGasUsed,
        generateSeconds: round(chain.generateSeconds, 1),
      },
      ...(chain.importFigures ? { import: chain.importFigures } : {}),
      memory,
      cases,
      ...(starknet ? { starknetBench: starknet.result } : {}),
      targets: [],
      seconds: 0,
    };
    report.targets = evaluateTargets(report);
    report.seconds = round((performance.now() - started) / 1000, 1);
    return report;
  } finally {
    await stopAll();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

function roundLoad(r: LoadResult): LoadResult {
  return { ...r, seconds: round(r.seconds, 2), rps: round(r.rps, 1), p50: round(r.p50, 3), p99: round(r.p99, 3), mean: round(r.mean, 3) };
}

/** Wrong or missing answers of a run: connection errors, timeouts, mismatches, non-2xx. */
export function badCount(r: LoadResult | undefined): number {
  return r ? r.errors + r.timeouts + r.mismatches + r.non2xx : 0;
}

// ---------------------------------------------------------------------------------------------
// targets (issues 3, 4, 5, 7)

function evaluateTargets(rep: BenchReport): Target[] {
  const c = (prefix: string) => rep.cases.find((x) => x.name.startsWith(prefix));
  const out: Target[] = [];
  const ratio = (a?: number, b?: number) => (a !== undefined && b !== undefined && b > 0 ? a / b : undefined);
  const notRun = (issue: number, target: string) => out.push({ issue, target, measured: 'not run', met: null });
  /** `min` undefined: a figure shown for information, not a target (met: –). */
  const rpsRatio = (issue: number, target: string, name: string, vs: ServerName, min: number | undefined) => {
    const k = c(name);
    const v = ratio(k?.servers.tracenode?.http?.rps, k?.servers[vs]?.http?.rps);
    if (v === undefined) return notRun(issue, target);
    out.push({
      issue,
      target,
      measured: `${v.toFixed(2)}× (${fmtRps(k!.servers.tracenode!.http!.rps)} vs ${fmtRps(k!.servers[vs]!.http!.rps)} req/s)`,
      met: min === undefined ? null : v >= min,
    });
  };
  const latencyVsAnvil = (issue: number, target: string, name: string, max: number) => {
    const k = c(name);
    const tn = k?.servers.tracenode?.c1?.p50;
    const an = k?.servers.anvil?.c1?.p50;
    const v = ratio(tn, an);
    if (v === undefined) return notRun(issue, target);
    out.push({ issue, target, measured: `${v.toFixed(2)}× anvil's (p50 ${fmtMs(tn!)} vs ${fmtMs(an!)} ms, one connection)`, met: v <= max });
  };
  rpsRatio(3, 'eth_getStorageAt at latest ≥ 0.8× the floor over HTTP', 'eth_getStorageAt latest', 'floor', 0.8);
  // Information, not a target of the issue: against the transport tracenode's HTTP fast path uses.
  rpsRatio(3, '(same, against the bare node:http floor: information)', 'eth_getStorageAt latest', 'nodeFloor', undefined);
  rpsRatio(3, 'eth_getProof (1 key) ≥ 0.5× anvil', 'eth_getProof 1 key', 'anvil', 0.5);
  rpsRatio(3, 'eth_getProof (10 keys) ≥ 0.5× anvil', 'eth_getProof 10 keys', 'anvil', 0.5);
  rpsRatio(4, 'eth_call simple view ≥ 0.5× the floor over HTTP', 'eth_call view', 'floor', 0.5);
  latencyVsAnvil(4, "eth_call heavy loop: latency ≤ 3× anvil's", 'eth_call heavy', 3);
  const tf = c('trace_filter');
  if (tf?.servers.tracenode?.c1 && tf.servers.anvil?.c1) {
    const tn = tf.servers.tracenode.c1.p50;
    const an = tf.servers.anvil.c1.p50;
    const chainNote = rep.chain.head < 10_000 ? `chain of ${rep.chain.head} blocks (the issue asks ≥ 10,000: --blocks 10000)` : undefined;
    out.push({
      issue: 5,
      target: 'trace_filter (rare address, whole range): median < 50 ms',
      measured: `${fmtMs(tn)} ms (one connection)`,
      met: tn < 50,
      ...(chainNote ? { note: chainNote } : {}),
    });
    out.push({
      issue: 5,
      target: 'trace_filter: ≥ 10× faster than anvil',
      measured: `${(an / tn).toFixed(1)}× (anvil ${fmtMs(an)} ms)`,
      met: an / tn >= 10,
      ...(chainNote ? { note: chainNote } : {}),
    });
  } else {
    notRun(5, 'trace_filter (rare address, whole range): median < 50 ms');
    notRun(5, 'trace_filter: ≥ 10× faster than anvil');
  }
  latencyVsAnvil(5, 'trace_block (heaviest block): no slower than 3× anvil', 'trace_block', 3);
  const rows = rep.starknetBench?.rows ?? [];
  const row = (q: string) => rows.find((r) => r.query.startsWith(q));
  const sel = row('selective: address + keys[0], whole range');
  const selHttp = c('starknet_getEvents selective')?.servers.tracenode?.c1?.p50;
  if (sel) {
    out.push({
      issue: 7,
      target: 'starknet_getEvents selective (one address + one key, whole range): median < 20 ms',
      measured: `${sel.medianMs} ms in process (${sel.events} events)${selHttp !== undefined ? `; ${fmtMs(selHttp)} ms over HTTP` : ''}`,
      met: sel.medianMs < 20 && (selHttp === undefined || selHttp < 20),
    });
  } else notRun(7, 'starknet_getEvents selective: median < 20 ms');
  const p1 = row('broad {}: page 1');
  const p100 = row('broad {}: page 100');
  if (p1 && p100) {
    out.push({
      issue: 7,
      target: 'starknet_getEvents paging flat: page 100 no slower than page 1 (chunk_size 1024)',
      measured: `page 100 ${p100.medianMs} ms vs page 1 ${p1.medianMs} ms (${(p100.medianMs / p1.medianMs).toFixed(2)}×)`,
      met: p100.medianMs <= p1.medianMs * 1.1,
      note: 'met when within 10% (noise)',
    });
  } else notRun(7, 'starknet_getEvents paging flat: page 100 no slower than page 1');
  return out;
}

// ---------------------------------------------------------------------------------------------
// output

function fmtRps(x: number): string {
  return x >= 100 ? Math.round(x).toString() : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}
function fmtMs(x: number): string {
  return x >= 100 ? Math.round(x).toString() : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}
function fmtRatio(a?: number, b?: number): string {
  return a !== undefined && b !== undefined && b > 0 ? `${(a / b).toFixed(2)}×` : '–';
}

function mdTable(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (c ?? '').padEnd(widths[i])).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** The tables: ratios, absolute figures, import, memory, Starknet bench, targets. */
export function renderTables(rep: BenchReport): string {
  const parts: string[] = [];
  const ratioRows = rep.cases.map((k) => {
    const s = k.servers;
    return [
      k.name,
      fmtRatio(s.tracenode?.http?.rps, s.floor?.http?.rps),
      fmtRatio(s.tracenode?.http?.rps, s.nodeFloor?.http?.rps),
      fmtRatio(s.tracenode?.http?.rps, s.anvil?.http?.rps),
      fmtRatio(s.tracenode?.ws?.rps, s.floor?.ws?.rps),
      fmtRatio(s.tracenode?.ws?.rps, s.anvil?.ws?.rps),
      fmtRatio(s.tracenode?.c1?.p50, s.anvil?.c1?.p50),
      k.crossCheck.startsWith('equal') ? 'equal' : k.crossCheck.startsWith('differs') ? 'DIFFERS' : '–',
    ];
  });
  parts.push(
    '### Ratios (throughput: higher is better for tracenode; latency: lower is better)\n\n' +
      mdTable(
        ['case', 'HTTP tn/floor', 'HTTP tn/node floor', 'HTTP tn/anvil', 'WS tn/floor', 'WS tn/anvil', 'p50 latency tn/anvil (1 conn)', 'answer vs anvil'],
        ratioRows,
      ),
  );
  const cell = (r?: LoadResult) => (r ? `${fmtRps(r.rps)} (${fmtMs(r.p50)} / ${fmtMs(r.p99)})` : '–');
  const errs = (k: CaseResult, tr: Transport) =>
    SERVERS.filter((s) => k.servers[s])
      .map((s) => String(badCount(k.servers[s]![tr])))
      .join('/');
  const absRows: string[][] = [];
  for (const k of rep.cases) {
    for (const tr of ['http', 'ws'] as const) {
      absRows.push([
        tr === 'http' ? k.name : '',
        tr.toUpperCase(),
        cell(k.servers.tracenode?.[tr]),
        cell(k.servers.anvil?.[tr]),
        cell(k.servers.floor?.[tr]),
        cell(k.servers.nodeFloor?.[tr]),
        errs(k, tr),
      ]);
    }
    const c1 = (s: ServerName) => (k.servers[s]?.c1 ? `${fmtMs(k.servers[s]!.c1!.p50)} / ${fmtMs(k.servers[s]!.c1!.p99)}` : '–');
    absRows.push(['', '1 conn p50/p99', c1('tracenode'), c1('anvil'), c1('floor'), c1('nodeFloor'), '']);
  }
  parts.push(
    `### Absolute figures: req/s (p50 / p99 ms), ${rep.settings.connections} connections${rep.settings.connections > 1 ? ' or sockets' : ''}; errors = wrong or failed answers\n\n` +
      mdTable(['case', 'transport', 'tracenode', 'anvil', 'floor', 'node floor', `errors (${SERVERS.join('/')})`], absRows),
  );
  if (rep.import) {
    const i = rep.import;
    parts.push(
      `### Import (${rep.chain.head} blocks, ${rep.chain.transactions} transactions, ${(i.raw.gasUsed / 1e6).toFixed(0)} Mgas; measured ${i.measuredAt.slice(0, 16).replace('T', ' ')} UTC)\n\n` +
        mdTable(
          ['', 'blocks/s', 'Mgas/s', 'seconds'],
          [
            [
              'tracenode import (execute + verify + write LevelDB)',
              String(i.tracenode.blocksPerSecond),
              String(i.tracenode.mgasPerSecond),
              String(i.tracenode.seconds),
            ],
            ['raw @ethereumjs/vm in memory (no database)', String(i.raw.blocksPerSecond), String(i.raw.mgasPerSecond), String(i.raw.seconds)],
            ['ratio tracenode / raw', `${i.ratio.blocks}×`, `${i.ratio.mgas}×`, ''],
          ],
        ),
    );
  }
  const m = rep.memory;
  parts.push(
    '### tracenode memory (RSS)\n\n' +
      mdTable(
        ['state', 'MiB'],
        [
          ['at rest (servers up, no request yet)', m.restMiB !== undefined ? String(m.restMiB) : '–'],
          [`${m.idleSocketsOpen ?? 0} of ${m.idleSockets ?? 0} idle WebSocket connections open`, m.idleMiB !== undefined ? String(m.idleMiB) : '–'],
          ['peak under the load above', m.underLoadMiB !== undefined ? String(m.underLoadMiB) : '–'],
        ],
      ),
  );
  if (rep.starknetBench) {
    parts.push(
      `### starknet_getEvents in process (bench/starknetEvents.ts ${rep.starknetBench.args.filter((a) => a !== '--keep' && !a.includes('/')).join(' ')})\n\n` +
        (rep.starknetBench.importLine ? `${rep.starknetBench.importLine}\n\n` : '') +
        mdTable(
          ['query', 'events', 'median ms', 'p99 ms', 'note'],
          rep.starknetBench.rows.map((r) => [r.query, r.events, String(r.medianMs), String(r.p99Ms), r.note]),
        ),
    );
  }
  parts.push(
    '### Targets (issues 3, 4, 5, 7)\n\n' +
      mdTable(
        ['issue', 'target', 'measured', 'met'],
        rep.targets.map((t) => [`#${t.issue}`, t.target, t.measured + (t.note ? ` — ${t.note}` : ''), t.met === null ? '–' : t.met ? 'yes' : 'NO']),
      ),
  );
  const problems = rep.cases.flatMap((k) => k.problems.map((p) => `- ${k.name}: ${p}`));
  const diffs = rep.cases.filter((k) => k.crossCheck.startsWith('differs')).map((k) => `- ${k.name}: ${k.crossCheck}`);
  if (problems.length || diffs.length) parts.push(`### Problems\n\n${[...problems, ...diffs].join('\n')}`);
  return parts.join('\n\n');
}

function markdown(rep: BenchReport, resultsFile: string | undefined): string {
  const m = rep.machine;
  const s = rep.settings;
  return `# Benchmarks

Produced by \`npm run bench\` (bench/run.ts) on ${rep.date.slice(0, 16).replace('T', ' ')} UTC${m.commit ? ` at commit ${m.commit}` : ''}; this file is rewritten by every full run${resultsFile ? ` (raw figures: \`${resultsFile}\`)` : ''}.

**Machine:** ${m.cores} cores (${m.cpu}), ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}, ${m.anvil}. Load average ${m.loadAverage.start.join(' ')} at the start, ${m.loadAverage.end.join(' ')} at the end (the machine is shared; ratios between servers measured in the same minute are the figures to read, absolute ones move with the load).

**Chain:** the \`bench\` scenario of \`scripts/anvilChain.mjs\`: ${rep.chain.head} blocks, ${rep.chain.transactions} transactions (ERC-20 and ERC-721 transfers, AMM swaps, deployments, reverting transactions), mined on anvil and imported into tracenode. anvil: ${rep.chain.anvilBoot}. Heaviest block ${rep.chain.heaviestBlock} (${rep.chain.heaviestBlockGasUsed} gas); rare address in blocks ${rep.chain.rareBlocks.join(', ')}.

**Method:** every case runs against tracenode, anvil (same chain) and the floor (\`bench/floor.ts\`: a bare Fastify app that parses the JSON-RPC envelope and answers a constant), in turn; the transport-bound cases (eth_blockNumber, eth_getStorageAt at latest) also against the node floor (\`bench/floor.ts --node\`: the same answers from Node's HTTP server with no framework, HTTP only), because tracenode answers well-formed HTTP requests before Fastify's router (src/rpc/fastPath.ts) and so can go below the Fastify floor; both ratios are reported, on 127.0.0.1, with the load generator on the same machine: over HTTP keep-alive with autocannon (${s.connections} connections) and over WebSocket (\`bench/wsLoad.ts\`: ${s.connections} sockets, one request in flight each), ${s.durationS} s measured after a ${s.warmupS} s warm-up; then ${s.probeS} s over one HTTP connection for the unloaded latency (the latency targets use this one: under ${s.connections} connections, a single-threaded server's latency is mostly queueing). Every answer is checked during the run: tracenode's and anvil's against tracenode's answer fetched before the run (cross-checked against anvil's first; a difference is reported under Problems and anvil is then held to its own first answer), the floor's against its constant. A wrong answer counts as an error. Import: \`tracenode import\` on the whole chain vs \`bench/rawExecution.ts\` (@ethereumjs/vm \`runBlock\` on the same blocks, state in memory, no database), measured one after the other when the cache is built. The Starknet cases use the chain of \`bench/starknetEvents.ts\` (its in-process table below), served by the same tracenode process as a second network.

## How to reproduce

\`\`\`sh
npm ci
npm run bench                       # full run (${DEFAULTS.full.blocks} blocks; the first run builds bench/.cache — about 40 min on 2 cores, mostly import and the raw-execution floor — later runs reuse it, ~12 min)
npm run bench -- --blocks 2000      # a smaller chain for a quicker full table (trace_filter then spans fewer blocks than issue 5 asks)
npm run bench -- --quick            # small chain, ${DEFAULTS.quick.durationS} s per run
npm run bench -- --only trace_      # cases whose name contains "trace_" (comma-separate several)
npm run bench -- --duration 10 --connections 32 --fresh   # longer runs, more load, rebuilt cache
\`\`\`

${renderTables(rep)}
`;
}

// ---------------------------------------------------------------------------------------------
// CLI

function parseCli(argv: string[]): BenchOptions & { help?: boolean; noWrite?: boolean; render?: string } {
  const o: BenchOptions & { help?: boolean; noWrite?: boolean; render?: string } = {};
  const num = (flag: string, v: string | undefined) => {
    const n = Number(v);
    if (v === undefined || !Number.isFinite(n) || n < 0) throw new Error(`${flag} needs a non-negative number`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === '--only')
      o.only = [
        ...(o.only ?? []),
        ...(value() ?? '')
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      ];
    else if (flag === '--quick') o.quick = true;
    else if (flag === '--blocks') o.blocks = Math.floor(num(flag, value()));
    else if (flag === '--duration') o.durationS = num(flag, value());
    else if (flag === '--warmup') o.warmupS = num(flag, value());
    else if (flag === '--probe') o.probeS = num(flag, value());
    else if (flag === '--connections') o.connections = Math.max(1, Math.floor(num(flag, value())));
    else if (flag === '--idle-sockets') o.idleSockets = Math.floor(num(flag, value()));
    else if (flag === '--fresh') o.fresh = true;
    else if (flag === '--markdown') o.writeMarkdown = true;
    else if (flag === '--no-write') o.noWrite = true;
    else if (flag === '--render') o.render = value();
    else if (flag === '--help' || flag === '-h') o.help = true;
    else throw new Error(`unknown argument ${a} (see --help)`);
  }
  if (o.blocks !== undefined && o.blocks < 18) throw new Error('--blocks: the bench chain needs at least 18 blocks');
  return o;
}

const HELP = `usage: npm run bench -- [options]
  --only a,b         run the cases whose name contains one of the substrings (case-insensitive)
  --quick            small chain (${DEFAULTS.quick.blocks} blocks), ${DEFAULTS.quick.durationS} s per run, Starknet bench --quick
  --blocks N         bench chain height (default ${DEFAULTS.full.blocks})
  --duration S       measured seconds per case, server and transport (default ${DEFAULTS.full.durationS})
  --warmup S         warm-up seconds before each run (default ${DEFAULTS.full.warmupS})
  --probe S          seconds of the one-connection latency run (default ${DEFAULTS.full.probeS})
  --connections C    HTTP connections / WebSocket sockets (default ${DEFAULTS.full.connections})
  --idle-sockets N   idle WebSockets for the memory figure (default ${DEFAULTS.full.idleSockets}; 0 skips)
  --fresh            re-import into tracenode (and re-measure import speed) even if cached
  --markdown         write BENCHMARKS.md even for --quick/--only runs
  --no-write         write neither bench/results/ nor BENCHMARKS.md
  --render FILE      measure nothing: rewrite BENCHMARKS.md from a results file of a full run
cases: ${CASE_NAMES.join('; ')}`;

async function main(): Promise<void> {
  const opts = parseCli(process.argv.slice(2));
  if (opts.help) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  if (opts.render !== undefined) {
    const saved = JSON.parse(readFileSync(opts.render, 'utf8')) as BenchReport;
    saved.targets = evaluateTargets(saved);
    writeFileSync(join(REPO, 'BENCHMARKS.md'), markdown(saved, relative(REPO, resolve(opts.render))));
    process.stdout.write(`results: BENCHMARKS.md rendered from ${opts.render}\n`);
    return;
  }
  const report = await runBench(opts);
  const tables = renderTables(report);
  process.stdout.write(`\n${tables}\n\n`);
  if (!opts.noWrite) {
    const dir = join(HERE, 'results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${report.date.slice(0, 19).replace(/:/g, '')}Z${report.mode === 'quick' ? '-quick' : ''}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 1)}\n`);
    process.stdout.write(`results: ${relative(REPO, file)}\n`);
    const full = report.mode === 'full' && report.settings.only.length === 0;
    if (opts.writeMarkdown ?? full) {
      writeFileSync(join(REPO, 'BENCHMARKS.md'), markdown(report, relative(REPO, file)));
      process.stdout.write('results: BENCHMARKS.md\n');
    }
  }
  const bad = report.cases.reduce(
    (n, k) => n + SERVERS.reduce((m, s) => m + badCount(k.servers[s]?.http) + badCount(k.servers[s]?.ws), 0) + k.problems.length,
    0,
  );
  process.stdout.write(`bench: done in ${Math.round(report.seconds)} s${bad ? `; ${bad} wrong answers or problems (see above)` : ''}\n`);
  if (bad) process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`bench: ${(err as Error)?.stack ?? err}\n`);
    process.exitCode = 1;
  });
}
