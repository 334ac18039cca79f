/**
 * The traffic a hosted provider serves (#39), replayed on the bench chain: a mix of the ten most
 * asked methods, eth_call about half of it, the views repeated as a population of dapps repeats
 * them. Measured on tracenode with the eth_call result and estimate caches off and on (a tracenode of this
 * section's own each time, on the bench datadir: LevelDB allows one process) and on anvil (the
 * run's anvil, same chain), HTTP keep-alive at 32 connections and at one: requests per CPU-second
 * of the server (all threads, /proc), CPU per request, p50/p99, and the cache's hit rate (from
 * tracenode's /metrics).
 *
 * The mix (shares of requests): eth_call 50 % — ERC-20 balanceOf of the 100 bench users on both
 * tokens, totalSupply, the AMM pair's reserves and quotes, NFT ownerOf: 226 distinct calls at
 * `latest`, drawn by popularity rank with Zipf's law (s = 1: the 10 most asked are ~49 % of calls);
 * eth_blockNumber 10 %; eth_getBalance 8 % and eth_getTransactionCount 4 % (a user, uniform);
 * eth_getTransactionReceipt 8 % (a transaction of the last 20 blocks); eth_getBlockByNumber 7 %
 * (`latest`, or one of the last 20 blocks); eth_getLogs 5 % (one token's logs over 10 blocks);
 * eth_getCode 3 %; eth_chainId 3 %; eth_estimateGas 2 % (an ERC-20 transfer between users). The
 * draw is seeded: every server gets the same sequence. The chain does not move during a run, so
 * every repeated call can hit: the hit rate is that of one block's lifetime (on mainnet the head
 * moves every 12 s, and `latest` calls start again at each block).
 *
 * Every answer is checked: each server's against its own answer to the same request fetched
 * before the run, tracenode's first answers against anvil's (results equal; blocks, receipts and
 * logs by their hashes; the estimate within 2 %), differences listed under the section.
 */
import { encodeFunctionData, parseAbi } from 'viem';
import { type BenchChain, benchUser } from './chains.js';
import { canonical, field, httpPost, listOf, parseJson, requestBody, rpcResult, stringOf } from './jsonRpc.js';
import { httpLoad, waitIdle } from './load.js';
import { round } from './names.js';
import { API_KEY, processCpuSeconds, startServer, tracenodeArgs } from './processes.js';
import type { CpuClock, LoadResult } from './wsLoad.js';

const ABI = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function totalSupply() view returns (uint256)',
  'function reserve0() view returns (uint256)',
  'function reserve1() view returns (uint256)',
  'function quote(bool, uint256) view returns (uint256)',
  'function ownerOf(uint256) view returns (address)',
  'function transfer(address, uint256) returns (bool)',
]);

export interface MixEntry {
  method: string;
  body: string;
  /** Probability of this request in the mix. */
  p: number;
}

/** Shares of the methods other than eth_call (eth_call takes the rest, 50 %). */
const SHARES: Record<string, number> = {
  eth_blockNumber: 0.1,
  eth_getBalance: 0.08,
  eth_getTransactionReceipt: 0.08,
  eth_getBlockByNumber: 0.07,
  eth_getLogs: 0.05,
  eth_getTransactionCount: 0.04,
  eth_getCode: 0.03,
  eth_chainId: 0.03,
  eth_estimateGas: 0.02,
};
/**
 * Seconds of the mix before the first measured run on a server. A mixed load keeps V8 compiling
 * and its collector sizing the heap for seconds: after 1 s, tracenode's mix cost 605 µs a request
 * with the cache off and 209 with it on, 181 and 51 of them in V8's background threads; after
 * 10 s, 352 and 183, with 41 and 21 there. A provider's node runs for days: the figure is the
 * steady one. anvil gets the same warm-up.
 */
export const MIX_WARMUP_S = 8;
const CALL_SHARE = 1 - Object.values(SHARES).reduce((a, b) => a + b, 0);
const USERS = 100;
const RECENT_BLOCKS = 20;
const hex = (n: number) => `0x${n.toString(16)}`;

/** The distinct requests of the mix and their probabilities, from the chain as `url` serves it. */
export async function buildMix(url: string, e: BenchChain): Promise<MixEntry[]> {
  const c = e.contracts;
  const head = e.head.number;
  const users = Array.from({ length: USERS }, (_, i) => benchUser(i));
  const call = (to: string, data: string) => requestBody('eth_call', [{ to, data }, 'latest']);
  // Popularity rank order: what every page and feed shows first, then the users' balances, then NFTs.
  const views = [
    call(c.tokenA, encodeFunctionData({ abi: ABI, functionName: 'totalSupply' })),
    call(c.pair, encodeFunctionData({ abi: ABI, functionName: 'quote', args: [true, 10n ** 18n] })),
    call(c.pair, encodeFunctionData({ abi: ABI, functionName: 'reserve0' })),
    call(c.pair, encodeFunctionData({ abi: ABI, functionName: 'reserve1' })),
    call(c.tokenB, encodeFunctionData({ abi: ABI, functionName: 'totalSupply' })),
    call(c.pair, encodeFunctionData({ abi: ABI, functionName: 'quote', args: [false, 10n ** 18n] })),
    ...users.flatMap((u) => [c.tokenA, c.tokenB].map((t) => call(t, encodeFunctionData({ abi: ABI, functionName: 'balanceOf', args: [u as `0x${string}`] })))),
    ...Array.from({ length: 20 }, (_, i) => call(c.nft, encodeFunctionData({ abi: ABI, functionName: 'ownerOf', args: [BigInt(i + 1)] }))),
  ];
  const harmonic = views.reduce((sum, _, r) => sum + 1 / (r + 1), 0);
  const entries: MixEntry[] = views.map((body, r) => ({ method: 'eth_call', body, p: (CALL_SHARE * (1 / (r + 1))) / harmonic }));
  const uniform = (method: string, bodies: string[]) => entries.push(...bodies.map((body) => ({ method, body, p: SHARES[method] / bodies.length })));
  const recent = Array.from({ length: RECENT_BLOCKS }, (_, i) => head - i);
  const txs: string[] = [];
  for (const n of recent) txs.push(...((listOf(field(await rpcResult(url, 'eth_getBlockByNumber', [hex(n), false]), 'transactions')) ?? []) as string[]));
  uniform('eth_blockNumber', [requestBody('eth_blockNumber', [])]);
  uniform('eth_chainId', [requestBody('eth_chainId', [])]);
  uniform(
    'eth_getBalance',
    users.map((u) => requestBody('eth_getBalance', [u, 'latest'])),
  );
  uniform(
    'eth_getTransactionCount',
    users.map((u) => requestBody('eth_getTransactionCount', [u, 'latest'])),
  );
  uniform(
    'eth_getTransactionReceipt',
    txs.map((t) => requestBody('eth_getTransactionReceipt', [t])),
  );
  uniform('eth_getBlockByNumber', [
    ...Array.from({ length: RECENT_BLOCKS }, () => requestBody('eth_getBlockByNumber', ['latest', false])),
    ...recent.map((n) => requestBody('eth_getBlockByNumber', [hex(n), false])),
  ]);
  uniform(
    'eth_getLogs',
    recent.map((n) => requestBody('eth_getLogs', [{ fromBlock: hex(n - 9), toBlock: hex(n), address: c.tokenA }])),
  );
  uniform(
    'eth_getCode',
    [c.tokenA, c.tokenB, c.pair, c.nft, c.factory, c.heavy].map((a) => requestBody('eth_getCode', [a, 'latest'])),
  );
  uniform(
    'eth_estimateGas',
    users
      .slice(0, 10)
      .map((u, i) =>
        requestBody('eth_estimateGas', [
          { from: u, to: c.tokenA, data: encodeFunctionData({ abi: ABI, functionName: 'transfer', args: [users[i + 10] as `0x${string}`, 1n] }) },
        ]),
      ),
  );
  return entries;
}

/** A seeded draw over `entries` (mulberry32): the same sequence for every server. */
export function drawer(entries: readonly MixEntry[], seed: number): () => number {
  const cumulative: number[] = [];
  let sum = 0;
  for (const e of entries) {
    sum += e.p;
    cumulative.push(sum);
  }
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = (((t ^ (t >>> 14)) >>> 0) / 4294967296) * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** How tracenode's answer and anvil's are compared, by method; undefined when they agree. */
function disagreement(method: string, ours: unknown, theirs: unknown): string | undefined {
  const r = (x: unknown) => field(x, 'result');
  if (method === 'eth_estimateGas') {
    const [a, b] = [Number(stringOf(r(ours))), Number(stringOf(r(theirs)))];
    return Math.abs(a - b) <= 0.02 * b ? undefined : `estimate ${a} vs anvil's ${b}`;
  }
  const key = (x: unknown): string => {
    const v = r(x);
    if (method === 'eth_getBlockByNumber') return String(field(v, 'hash'));
    if (method === 'eth_getTransactionReceipt') return `${field(v, 'transactionHash')} ${field(v, 'status')} ${field(v, 'gasUsed')}`;
    if (method === 'eth_getLogs') return (listOf(v) ?? []).map((l) => `${field(l, 'transactionHash')}:${field(l, 'logIndex')}`).join(',');
    return canonical(v);
  };
  return key(ours) === key(theirs) ? undefined : `${key(ours).slice(0, 80)} vs anvil's ${key(theirs).slice(0, 80)}`;
}

/** Each distinct request's answer text from `url` (the run's expected answers), failing on an error answer. */
async function answersOf(url: string, entries: readonly MixEntry[]): Promise<string[]> {
  const out: string[] = [];
  for (const e of entries) {
    const { text } = await httpPost(url, e.body);
    if (field(parseJson(text), 'error') !== undefined) throw new Error(`traffic mix: ${e.body.slice(0, 160)} answered ${text.slice(0, 200)}`);
    out.push(text);
  }
  return out;
}

export interface MixRun {
  connections: number;
  rps: number;
  cpuUsPerRequest?: number;
  requestsPerCpuSecond?: number;
  p50: number;
  p99: number;
  bad: number;
  /** tracenode: `cpuUsPerRequest` by thread. */
  threads?: ThreadShares;
}

export interface MixServer {
  server: 'anvil' | 'tracenode, cache off' | 'tracenode, cache on';
  runs: MixRun[];
  /** Hits over lookups of the call result cache during the runs (tracenode). */
  hitRate?: number;
  /** The same of the eth_estimateGas answer cache. */
  estimateHitRate?: number;
  /**
   * Each method's requests of the mix alone, at 32 connections: CPU µs per request (anvil, tracenode
   * with the cache on; with it off, eth_call alone), and for tracenode where it went.
   */
  byMethod?: Array<{ method: string; share: number; cpuUsPerRequest?: number; threads?: ThreadShares }>;
}

/**
 * A tracenode request's CPU by thread, in µs: the serving thread and the EVM workers (their
 * CPU-seconds metrics), and the rest of the process (V8's garbage-collection and compiler
 * threads, LevelDB's reads).
 */
export interface ThreadShares {
  servingUs: number;
  workersUs: number;
  otherUs: number;
}

export interface TrafficMixReport {
  distinct: number;
  servers: MixServer[];
  /** Requests of the mix where tracenode's first answer and anvil's differ. */
  differences: string[];
}

async function runMix(
  url: string,
  entries: readonly MixEntry[],
  expected: readonly string[],
  cpu: CpuClock,
  connections: number,
  durationS: number,
  only?: string,
  warmupS = 1,
): Promise<MixRun> {
  const draw = drawer(
    entries.map((e) => (only === undefined || e.method === only ? e : { ...e, p: 0 })),
    20261129,
  );
  const pick = () => {
    const i = draw();
    return { body: entries[i].body, verify: (text: string) => text === expected[i] };
  };
  const r: LoadResult = await httpLoad({ url, headers: {}, body: entries[0].body, verify: () => true, connections, durationS, warmupS, cpu, pick });
  await waitIdle({ http: url, ws: '', headers: {} });
  const cpuUs = r.cpuUsPerRequest;
  return {
    connections,
    rps: round(r.rps, 1),
    ...(cpuUs !== undefined ? { cpuUsPerRequest: round(cpuUs, 1), requestsPerCpuSecond: round(1e6 / cpuUs, 0) } : {}),
    p50: round(r.p50, 3),
    p99: round(r.p99, 3),
    bad: r.errors + r.timeouts + r.mismatches + r.non2xx,
  };
}

/** The CPU seconds of tracenode's serving thread and EVM workers, from /metrics, with the process's. */
async function threadClock(base: string, pid: number | undefined): Promise<{ serving: number; workers: number; process: number } | undefined> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const serving = /^tracenode_serving_thread_cpu_seconds_total (\S+)$/m.exec(text)?.[1];
  const workers = /^tracenode_evm_worker_cpu_seconds_total\{network="mainnet"\} (\S+)$/m.exec(text)?.[1];
  const process = processCpuSeconds(pid);
  if (serving === undefined || workers === undefined || process === undefined) return undefined;
  return { serving: Number(serving), workers: Number(workers), process };
}

/** `cpuUsPerRequest` split by the threads' shares of the process's CPU between two readings. */
function threadShares(
  before: Awaited<ReturnType<typeof threadClock>>,
  after: Awaited<ReturnType<typeof threadClock>>,
  cpuUsPerRequest: number | undefined,
): ThreadShares | undefined {
  if (before === undefined || after === undefined || cpuUsPerRequest === undefined) return undefined;
  const total = after.process - before.process;
  if (!(total > 0)) return undefined;
  const serving = Math.min(1, (after.serving - before.serving) / total);
  const workers = Math.min(1 - serving, (after.workers - before.workers) / total);
  return {
    servingUs: round(cpuUsPerRequest * serving, 1),
    workersUs: round(cpuUsPerRequest * workers, 1),
    otherUs: round(cpuUsPerRequest * (1 - serving - workers), 1),
  };
}

/** `run`, with its CPU per request split by thread when `threads` names a tracenode (its base URL and pid). */
async function splitByThread(threads: { base: string; pid?: number } | undefined, run: () => Promise<MixRun>): Promise<MixRun> {
  const before = threads && (await threadClock(threads.base, threads.pid));
  const r = await run();
  const split = threads && threadShares(before, await threadClock(threads.base, threads.pid), r.cpuUsPerRequest);
  return split ? { ...r, threads: split } : r;
}

type CacheCounts = Record<'call_results' | 'gas_estimates', { hits: number; misses: number }>;

/** The call result and estimate caches' hits and misses from tracenode's /metrics. */
async function cacheCounts(base: string): Promise<CacheCounts> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const value = (cache: string, name: string) =>
    Number(new RegExp(`^tracenode_cache_${name}_total\\{network="mainnet",cache="${cache}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  const of = (cache: string) => ({ hits: value(cache, 'hits'), misses: value(cache, 'misses') });
  return { call_results: of('call_results'), gas_estimates: of('gas_estimates') };
}

/** Hits over lookups of a cache between two readings; undefined without lookups. */
function hitRateOf(before: CacheCounts, after: CacheCounts, cache: keyof CacheCounts): number | undefined {
  const hits = after[cache].hits - before[cache].hits;
  const lookups = hits + after[cache].misses - before[cache].misses;
  return lookups > 0 ? round(hits / lookups, 4) : undefined;
}

/** The section: anvil, then tracenode with the cache off, then on; 32 connections and one each. */
export async function benchTrafficMix(o: {
  datadir: string;
  anvilUrl: string;
  anvilCpu: CpuClock;
  chain: BenchChain;
  durationS: number;
  probeS: number;
  log: (line: string) => void;
}): Promise<TrafficMixReport> {
  const entries = await buildMix(o.anvilUrl, o.chain);
  const anvilAnswers = await answersOf(o.anvilUrl, entries);
  const servers: MixServer[] = [];
  const differences: string[] = [];
  const measure = async (url: string, expected: string[], cpu: CpuClock, threads?: { base: string; pid?: number }) => {
    const runs: MixRun[] = [];
    for (const [connections, seconds, warmupS] of [
      [32, o.durationS, MIX_WARMUP_S],
      [1, o.probeS, 1],
    ] as const) {
      runs.push(await splitByThread(threads, () => runMix(url, entries, expected, cpu, connections, seconds, undefined, warmupS)));
    }
    return runs;
  };
  // What each method of the mix costs on its own (the profile of the mix's CPU); on tracenode
  // (`threads`: its base URL and pid), by thread too.
  const byMethod = async (
    url: string,
    expected: string[],
    cpu: CpuClock,
    methods = new Set(entries.map((e) => e.method)),
    threads?: { base: string; pid?: number },
  ) => {
    const out: NonNullable<MixServer['byMethod']> = [];
    for (const method of methods) {
      const share = round(
        entries.filter((e) => e.method === method).reduce((sum, e) => sum + e.p, 0),
        3,
      );
      const { cpuUsPerRequest, threads: split } = await splitByThread(threads, () => runMix(url, entries, expected, cpu, 32, o.probeS, method));
      out.push({ method, share, cpuUsPerRequest, ...(split ? { threads: split } : {}) });
    }
    return out;
  };
  o.log(`traffic mix: ${entries.length} distinct requests; anvil…`);
  servers.push({ server: 'anvil', runs: await measure(o.anvilUrl, anvilAnswers, o.anvilCpu), byMethod: await byMethod(o.anvilUrl, anvilAnswers, o.anvilCpu) });
  for (const cacheOn of [false, true]) {
    const label = cacheOn ? 'tracenode, cache on' : 'tracenode, cache off';
    o.log(`traffic mix: ${label}…`);
    const tn = await startServer(
      'tracenode',
      tracenodeArgs(
        'serve',
        '--datadir',
        o.datadir,
        '--api-keys',
        API_KEY,
        '--port',
        '0',
        '--log-level',
        'info',
        ...(cacheOn ? [] : ['--execution.call-cache-bytes', '0', '--execution.estimate-cache-bytes', '0']),
      ),
      /JSON-RPC\s+http:\/\/127\.0\.0\.1:(\d+)\//,
      120_000,
      `${o.datadir}-mix.log`,
    );
    try {
      const base = `http://127.0.0.1:${tn.match[1]}`;
      const url = `${base}/v3/${API_KEY}`;
      const ours = await answersOf(url, entries);
      if (!cacheOn) {
        entries.forEach((e, i) => {
          const d = disagreement(e.method, parseJson(ours[i]), parseJson(anvilAnswers[i]));
          if (d) differences.push(`${e.body.slice(0, 120)}: ${d}`);
        });
      }
      const before = await cacheCounts(base);
      const runs = await measure(url, ours, () => processCpuSeconds(tn.proc.pid), { base, pid: tn.proc.pid });
      const after = await cacheCounts(base);
      const hitRate = hitRateOf(before, after, 'call_results');
      const estimateHitRate = hitRateOf(before, after, 'gas_estimates');
      servers.push({
        server: label,
        runs,
        ...(hitRate !== undefined ? { hitRate } : {}),
        ...(estimateHitRate !== undefined ? { estimateHitRate } : {}),
        byMethod: await byMethod(url, ours, () => processCpuSeconds(tn.proc.pid), cacheOn ? undefined : new Set(['eth_call']), { base, pid: tn.proc.pid }),
      });
    } finally {
      await tn.stop();
    }
  }
  return { distinct: entries.length, servers, differences };
}
