/**
 * One bench run, start to end (`runBench`): prepares the chains, starts the servers and checks
 * they serve the same chain, takes tracenode's memory at rest and with idle WebSockets, warms
 * every server up, then measures each case on each server and transport (answers checked first,
 * bench/verify.ts) and returns the report. Every server it started is stopped at the end, also
 * on failure or Ctrl-C.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join, relative } from 'node:path';
import { onPath } from '../scripts/lib/programs.js';
import { measureCallCosts } from './callCosts.js';
import { bodyFor, byCaseOrder, CASE_NAMES, type CaseDef, ethCases, selectCases, starknetCases } from './cases.js';
import { anvilVersion, balanceSlot, prepareChain, prepareDemo, runStarknetBench } from './chains.js';
import { measureEvmPool } from './evmPool.js';
import { measureFollow } from './follow.js';
import { benchFollowFrom } from './followFrom.js';
import { measureHeavyLoopFloor } from './heavyLoopFloor.js';
import { field, listOf, requestBody, rpcResult } from './jsonRpc.js';
import { roundLoad, runLoad, runProbe } from './load.js';
import { measureMemoryChecks } from './memoryChecks.js';
import { type BenchOptions, DEFAULTS } from './options.js';
import { measurePipelineCosts } from './pipelineCosts.js';
import { BENCH_DIR, buildTracenode, type Endpoints, REPO, rssMiB, sleep, startServers } from './processes.js';
import { benchRealBlocks } from './realBlocks.js';
import { measureReplicas } from './replicas.js';
import { fmtMs, fmtRps } from './report.js';
import { type BenchReport, badCount, type CaseResult, round, SERVERS, type ServerName } from './results.js';
import { measureSubscriptions } from './subscriptions.js';
import { evaluateTargets } from './targets.js';
import { benchTrafficMix } from './trafficMix.js';
import { measureTransferFloor } from './transferFloor.js';
import { checkAnswers } from './verify.js';
import { benchWalletWait } from './walletWait.js';
import { type CpuClock, openIdleSockets } from './wsLoad.js';

type Settings = BenchReport['settings'];

function describeMachine(): BenchReport['machine'] {
  let commit: string | undefined;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
  } catch {
    commit = undefined;
  }
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    anvil: anvilVersion(),
    os: `${process.platform} ${release()}`,
    loadAverage: { start: loadavg().map((x) => round(x)), end: [] },
    commit,
  };
}

/**
 * One case: its answers checked on every server, then load per transport, each server in turn
 * (floor, node floor, tracenode, anvil) with the same settings, then the one-connection run.
 * `measuringTracenode` is told when tracenode's runs start and end (its RSS is sampled then).
 */
async function measureCase(
  def: CaseDef,
  endpoints: Endpoints,
  cpu: Record<ServerName, CpuClock>,
  settings: Settings,
  measuringTracenode: (on: boolean) => void,
  log: (l: string) => void,
): Promise<CaseResult> {
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
  log(`case: ${def.name}`);
  const verifiers = await checkAnswers(def, servers, endpoints, result);

  for (const tr of ['http', 'ws'] as const) {
    for (const s of servers) {
      const verify = verifiers[s][tr];
      const run = result.servers[s];
      if (!verify || !run) continue;
      measuringTracenode(s === 'tracenode');
      const r = await runLoad(tr, endpoints[s][def.network], bodyFor(def, s), verify, settings.connections, settings.durationS, settings.warmupS, cpu[s]);
      measuringTracenode(false);
      run[tr] = roundLoad(r);
      log(
        `  ${tr.padEnd(4)} ${s.padEnd(9)} ${fmtRps(r.rps).padStart(8)} req/s  p50 ${fmtMs(r.p50)} ms  p99 ${fmtMs(r.p99)} ms${r.cpuUsPerRequest !== undefined ? `  ${Math.round(r.cpuUsPerRequest)} µs CPU/req` : ''}${badCount(r) ? `  ERRORS ${badCount(r)} ${r.firstMismatch ?? ''}` : ''}`,
      );
    }
  }
  // Unloaded latency: one connection, HTTP.
  for (const s of servers) {
    const verify = verifiers[s].http;
    const run = result.servers[s];
    if (!verify || !run || settings.probeS <= 0) continue;
    const r = await runProbe(endpoints[s][def.network], bodyFor(def, s), verify, settings.probeS);
    run.c1 = { requests: r.requests, p50: round(r.p50, 3), p99: round(r.p99, 3) };
    if (badCount(r)) result.problems.push(`${s}: ${badCount(r)} bad answers in the one-connection run: ${r.firstMismatch ?? ''}`);
  }
  return result;
}

/** Runs the bench as `options` say (defaults: a full run) and returns its report; writes no file. */
export async function runBench(options: BenchOptions = {}): Promise<BenchReport> {
  const started = performance.now();
  const sink = options.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const log = (l: string) => sink(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${l}`);
  const mode = options.quick ? 'quick' : 'full';
  const d = DEFAULTS[mode];
  const settings: Settings = {
    blocks: options.blocks ?? d.blocks,
    durationS: options.durationS ?? d.durationS,
    warmupS: options.warmupS ?? d.warmupS,
    probeS: options.probeS ?? d.probeS,
    connections: options.connections ?? d.connections,
    only: options.only ?? [],
  };
  const idleSockets = options.idleSockets ?? d.idleSockets;
  const cacheRoot = options.cacheDir ?? join(BENCH_DIR, '.cache');
  mkdirSync(cacheRoot, { recursive: true });
  const names = new Set<string>(selectCases(options.only));
  // The EVM pool section (bench/evmPool.ts) runs in a full run, or with --only "evm pool".
  const wantPool = settings.only.length === 0 || settings.only.some((s) => 'evm pool'.includes(s.toLowerCase()));
  // The follow section (bench/follow.ts) too, with --only follow; it runs last (it mines on anvil).
  const wantFollow = settings.only.length === 0 || settings.only.some((s) => 'follow'.includes(s.toLowerCase()));
  // The from-block-N section (bench/followFrom.ts, a chain and an anvil of its own; the start is
  // also timed on the run's anvil, before the follow section mines on it), with --only "from block".
  const wantFollowFrom = settings.only.length === 0 || settings.only.some((s) => 'from block n'.includes(s.toLowerCase()));
  const wantRealBlocks = settings.only.length === 0 || settings.only.some((s) => 'real blocks'.includes(s.toLowerCase()));
  const wantWalletWait = settings.only.length === 0 || settings.only.some((s) => 'wallet waits'.includes(s.toLowerCase()));
  const wantMix = settings.only.length === 0 || settings.only.some((s) => 'traffic mix'.includes(s.toLowerCase()));
  // The subscriptions section (bench/subscriptions.ts, an anvil of its own), with --only subscriptions.
  const wantSubscriptions = settings.only.length === 0 || settings.only.some((s) => 'subscriptions'.includes(s.toLowerCase()));
  // The replicas section (bench/replicas.ts: Redis and HAProxy from Debian's packages), with --only replicas.
  const wantReplicas = settings.only.length === 0 || settings.only.some((s) => 'replicas'.includes(s.toLowerCase()));
  if (names.size === 0 && !wantPool && !wantFollow && !wantFollowFrom && !wantRealBlocks && !wantWalletWait && !wantMix && !wantSubscriptions && !wantReplicas)
    throw new Error(`--only ${settings.only.join(',')}: no case matches (cases: ${CASE_NAMES.join('; ')})`);
  const wantDemo = [...names].some((n) => n.includes('demo chain'));
  const wantStarknet = [...names].some((n) => n.startsWith('starknet'));

  log('bench: building dist/ (tracenode runs as npm start runs it)');
  await buildTracenode();
  const machine = describeMachine();
  log(
    `bench: ${mode}, ${names.size} cases, ${settings.connections} connections, ${settings.durationS} s (+${settings.warmupS} s warm-up) per run; load average ${machine.loadAverage.start.join(' ')}`,
  );

  // Servers and anything else to stop, newest first.
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (let s = stops.pop(); s; s = stops.pop()) await s().catch(() => {});
  };
  const onSignal = () => {
    void stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    // Starknet first: its bench holds the Starknet datadir's LevelDB lock while it runs.
    const starknet = wantStarknet ? await runStarknetBench(cacheRoot, mode === 'quick', log) : undefined;
    const demoDir = wantDemo ? await prepareDemo(cacheRoot, log) : undefined;
    const chain = await prepareChain(cacheRoot, settings.blocks, options.fresh ?? false, log);
    stops.push(chain.anvil.stop);
    const e = chain.expected;
    const head = e.head.number;

    const networks = [demoDir ? `demo=${demoDir}` : '', starknet ? `starknet-mainnet=${starknet.datadir}` : ''].filter(Boolean).join(',');
    const { endpoints, tracenode, ports, cpu } = await startServers({
      datadir: chain.datadir,
      networks,
      anvilUrl: chain.anvil.url,
      anvilCpu: chain.anvil.cpuSeconds,
      stops,
      token: e.bench.token,
    });

    // Same chain on both: head hashes must agree with the generator's.
    const tnHead = field(await rpcResult(endpoints.tracenode.mainnet.http, 'eth_getBlockByNumber', ['latest', false]), 'hash');
    const anvilHead = field(await rpcResult(endpoints.anvil.mainnet.http, 'eth_getBlockByNumber', ['latest', false]), 'hash');
    if (tnHead !== e.head.hash || anvilHead !== e.head.hash) {
      throw new Error(
        `head hashes differ: expected ${e.head.hash}, tracenode ${tnHead}, anvil ${anvilHead} (remove ${relative(REPO, chain.dir)} or run with --fresh)`,
      );
    }
    log(
      `servers: tracenode :${ports.tracenode} (pid ${tracenode.proc.pid}), anvil :${ports.anvil}, floor :${ports.floor}; head ${head} ${e.head.hash.slice(0, 18)}… on both`,
    );

    // memory at rest, then with idle sockets
    const memory: BenchReport['memory'] = {};
    await sleep(1000);
    memory.restMiB = round(rssMiB(tracenode.proc.pid) ?? 0, 1);
    if (idleSockets > 0) {
      const idle = await openIdleSockets(endpoints.tracenode.mainnet.ws, idleSockets);
      await sleep(1500);
      memory.idleSockets = idleSockets;
      memory.idleSocketsOpen = idle.open();
      memory.idleMiB = round(rssMiB(tracenode.proc.pid) ?? 0, 1);
      await idle.close();
      log(`memory: RSS at rest ${memory.restMiB} MiB, with ${memory.idleSocketsOpen}/${idleSockets} idle WebSockets ${memory.idleMiB} MiB`);
    }

    // one warm-up for all: the first case should not pay for JIT compilation and cold caches
    const globalWarmupS = options.globalWarmupS ?? d.globalWarmupS;
    if (globalWarmupS > 0) {
      const body = requestBody('eth_blockNumber', []);
      for (const s of SERVERS) {
        for (const tr of ['http', 'ws'] as const) {
          if (endpoints[s].mainnet[tr] === '') continue; // the node floor has no WebSocket
          await runLoad(tr, endpoints[s].mainnet, body, () => true, settings.connections, globalWarmupS, 0);
        }
      }
    }

    // anvil keeps the state of its last 64 blocks only: the tracers are compared on the heaviest
    // block of the last 50 (the chain's heaviest block is older, and anvil cannot replay it).
    const recent = await heaviestRecentBlock(endpoints.tracenode.mainnet.http, head, 50);
    const defs = ethCases(names, e, demoDir !== undefined, recent);
    if (starknet) {
      const sn = endpoints.tracenode.starknet;
      const first = await rpcResult(sn.http, 'starknet_getEvents', { filter: { chunk_size: 1 } }, sn.headers);
      defs.push(...starknetCases(names, listOf(field(first, 'events'))?.[0]));
    }
    defs.sort(byCaseOrder);

    // RSS under load: sampled while tracenode is being measured
    let peak = 0;
    let sampling = false;
    const sampler = setInterval(() => {
      if (!sampling) return;
      const r = rssMiB(tracenode.proc.pid);
      if (r !== undefined && r > peak) peak = r;
    }, 200);
    stops.push(async () => clearInterval(sampler));

    const cases: CaseResult[] = [];
    for (const def of defs) {
      cases.push(
        await measureCase(
          def,
          endpoints,
          cpu,
          settings,
          (on) => {
            sampling = on;
          },
          log,
        ),
      );
    }
    clearInterval(sampler);
    memory.underLoadMiB = round(peak, 1);
    // The heavy loop's floor (issue 31): its bytecode on plain @ethereumjs/evm in this process.
    let heavyLoopFloor: BenchReport['heavyLoopFloor'];
    if (cases.some((k) => k.name === 'eth_call heavy loop')) {
      const h = e.bench.heavyCall;
      heavyLoopFloor = await measureHeavyLoopFloor({ tracenodeUrl: endpoints.tracenode.mainnet.http, to: h.to, data: h.data, runs: mode === 'quick' ? 3 : 7 });
      log(
        `heavy loop on plain @ethereumjs/evm: ${round(heavyLoopFloor.mgasPerS, 2)} Mgas/s (${heavyLoopFloor.gasUsed} gas)${heavyLoopFloor.sameOutput ? '' : ' — OUTPUT DIFFERS'}`,
      );
    }
    // The floor under the wallet calls of issue 31 (access list, estimate, simulation): the transfer once on plain @ethereumjs/evm.
    let transferFloor: BenchReport['transferFloor'];
    const transferCase = defs.find((d) => d.name === 'eth_createAccessList (ERC-20 transfer)');
    if (transferCase !== undefined && cases.some((k) => k.name === transferCase.name)) {
      const call = (JSON.parse(transferCase.body) as { params: [{ from: string; to: string; data: string }] }).params[0];
      transferFloor = await measureTransferFloor({ tracenodeUrl: endpoints.tracenode.mainnet.http, call, runs: mode === 'quick' ? 500 : 3000 });
      log(
        `ERC-20 transfer on plain @ethereumjs/evm: ${round(transferFloor.cpuUsPerRun, 1)} µs of CPU a run (${transferFloor.gasUsed} gas)${transferFloor.sameOutput ? '' : ' — OUTPUT DIFFERS'}`,
      );
    }
    // What bounds issue 39's eth_call targets: the view call on one thread with nothing around it,
    // the call without bytecode (the set-up), and through the EVM workers (a copy of the datadir).
    let callCosts: BenchReport['callCosts'];
    if (cases.some((k) => k.name === 'eth_call view (balanceOf)')) {
      log('call costs: the view call in process, its set-up, and through the EVM workers…');
      const measured = await measureCallCosts({
        datadir: chain.datadir,
        workers: true,
        calls: mode === 'quick' ? 500 : 2000,
        rounds: mode === 'quick' ? 3 : 7,
      });
      callCosts = { ...measured, datadir: relative(REPO, measured.datadir) };
    }
    // Memory under a client that never reads and under a batch of proofs (issue 20), on the run's tracenode.
    let memoryChecks: BenchReport['memoryChecks'];
    if (wantPool) {
      const b = e.bench;
      log('memory: a WebSocket client that never reads; a batch of 1,000 eth_getProof…');
      memoryChecks = await measureMemoryChecks(
        {
          pid: tracenode.proc.pid!,
          http: endpoints.tracenode.mainnet.http,
          ws: endpoints.tracenode.mainnet.ws,
          bigAnswerBody: requestBody('eth_getBlockByNumber', [`0x${b.heaviestBlock.toString(16)}`, true]),
          proofParams: [b.token, [balanceSlot(b.holder)], 'latest'],
          log,
        },
        mode === 'quick',
      );
    }
    // The EVM pool section starts tracenode itself, with different pool sizes.
    let evmPool: BenchReport['evmPool'];
    if (wantPool) {
      await tracenode.stop();
      log('evm pool: tracenode with 1, 2 and 4 workers, head-of-line blocking, a batch of 1,000 calls, trace_block cold and warm…');
      const b = e.bench;
      evmPool = await measureEvmPool({
        datadir: chain.datadir,
        anvilUrl: chain.anvil.url,
        heavyBody: requestBody('eth_call', [{ to: b.heavyCall.to, data: b.heavyCall.data }, 'latest']),
        viewBody: requestBody('eth_call', [{ to: b.token, data: b.balanceOfCalldata }, 'latest']),
        storageBody: requestBody('eth_getStorageAt', [b.token, balanceSlot(b.holder), 'latest']),
        traceBlockBody: requestBody('trace_block', [`0x${b.heaviestBlock.toString(16)}`]),
        quick: mode === 'quick',
        durationS: settings.durationS,
        log,
      });
    }
    // The traffic mix starts tracenode itself, with the call cache off and on.
    let trafficMix: BenchReport['trafficMix'];
    if (wantMix) {
      await tracenode.stop();
      log("traffic mix: a provider's mix of the ten most asked methods on anvil, tracenode with the call cache off and on…");
      trafficMix = await benchTrafficMix({
        datadir: chain.datadir,
        anvilUrl: chain.anvil.url,
        anvilCpu: chain.anvil.cpuSeconds,
        chain: e,
        durationS: settings.durationS,
        probeS: settings.probeS,
        log,
      });
    }
    let followFrom: BenchReport['followFrom'];
    if (wantFollowFrom) {
      await tracenode.stop();
      log('from block N: serve --from latest to the first answer, catch-up from a checkpoint against import, first reads of untouched state, bytes per block…');
      followFrom = await benchFollowFrom({ total: 400, blocks: 60, benchChain: { anvilUrl: chain.anvil.url, holder: e.bench.holder }, log });
    }
    let realBlocks: BenchReport['realBlocks'];
    if (wantRealBlocks) {
      await tracenode.stop();
      log('real blocks: mainnet, Sepolia, Holesky and Hoodi blocks from their witnesses and from proofs…');
      realBlocks = await benchRealBlocks(log);
    }
    let walletWait: BenchReport['walletWait'];
    if (wantWalletWait) {
      await tracenode.stop();
      log('wallet waits: ethers and viem send and wait, straight to anvil and through tracenode, automine and a 1 s block time…');
      walletWait = await benchWalletWait(mode === 'quick' ? { automineSends: 10, blockTimeSends: 3 } : { automineSends: 50, blockTimeSends: 20 }, log);
    }
    let follow: BenchReport['follow'];
    if (wantFollow) {
      await tracenode.stop();
      log('follow: catch-up against import, reads during catch-up, new-block latency over ws://…');
      const b = e.bench;
      follow = await measureFollow({
        chainDir: join(chain.dir, 'chain'),
        anvilUrl: chain.anvil.url,
        storageBody: requestBody('eth_getStorageAt', [b.token, balanceSlot(b.holder), 'latest']),
        head,
        liveBlocks: mode === 'quick' ? 20 : 200,
        durationS: settings.durationS,
        log,
      });
    }
    let subscriptions: BenchReport['subscriptions'];
    if (wantSubscriptions) {
      await tracenode.stop();
      log('subscriptions: WebSocket clients of newHeads and logs on serve --follow, and idle subscriptions…');
      subscriptions = await measureSubscriptions({
        clients: mode === 'quick' ? 100 : 1000,
        blocks: mode === 'quick' ? 10 : 50,
        idleSubscriptions: mode === 'quick' ? 1000 : 10_000,
        log,
      });
    }
    let replicas: BenchReport['replicas'];
    const replicaPrograms = ['haproxy', 'redis-server'].filter((name) => onPath(name) === undefined);
    if (wantReplicas && replicaPrograms.length > 0) {
      log(`replicas: skipped: needs ${replicaPrograms.join(' and ')} (Debian: apt-get install ${replicaPrograms.join(' ')})`);
    } else if (wantReplicas) {
      await tracenode.stop();
      log('replicas: snapshots of the datadir, 1, 2 and 3 replicas behind HAProxy, the balancer hop and the Redis limiter…');
      const b = e.bench;
      replicas = await measureReplicas({
        datadir: chain.datadir,
        storageBody: requestBody('eth_getStorageAt', [b.token, balanceSlot(b.holder), 'latest']),
        viewBody: requestBody('eth_call', [{ to: b.token, data: b.balanceOfCalldata }, 'latest']),
        connections: settings.connections,
        durationS: settings.durationS,
        probeS: settings.probeS,
        log,
      });
    }
    log('pipeline costs: in process, one control more at each step…');
    const pipelineCosts = await measurePipelineCosts({ messages: options.quick ? 2000 : 20_000, rounds: options.quick ? 3 : 7 });

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
      pipelineCosts,
      ...(evmPool ? { evmPool } : {}),
      ...(memoryChecks ? { memoryChecks } : {}),
      ...(follow ? { follow } : {}),
      ...(followFrom ? { followFrom } : {}),
      ...(realBlocks ? { realBlocks } : {}),
      ...(walletWait ? { walletWait } : {}),
      ...(trafficMix ? { trafficMix } : {}),
      ...(heavyLoopFloor ? { heavyLoopFloor } : {}),
      ...(transferFloor ? { transferFloor } : {}),
      ...(callCosts ? { callCosts } : {}),
      ...(subscriptions ? { subscriptions } : {}),
      ...(replicas ? { replicas } : {}),
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

/** The block with the most gas among the last `count` (and its first transaction), read from tracenode. */
async function heaviestRecentBlock(url: string, head: number, count: number): Promise<{ number: number; gasUsed: number; tx: string }> {
  let best = { number: head, gasUsed: -1, tx: '' };
  for (let n = Math.max(1, head - count + 1); n <= head; n++) {
    const block = await rpcResult(url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
    const gasUsed = Number(field(block, 'gasUsed'));
    const txs = listOf(field(block, 'transactions')) ?? [];
    if (txs.length > 0 && gasUsed > best.gasUsed) best = { number: n, gasUsed, tx: String(txs[0]) };
  }
  if (best.gasUsed < 0) throw new Error(`no transaction in the last ${count} blocks`);
  return best;
}
