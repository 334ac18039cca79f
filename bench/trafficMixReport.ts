/**
 * The traffic mix's section of BENCHMARKS.md and issue 39's targets, from a report of
 * bench/trafficMix.ts.
 */
import { renderCallCosts } from './callCosts.js';
import { round } from './names.js';
import type { BenchReport, Target } from './results.js';
import { MIX_WARMUP_S, type MixServer, type TrafficMixReport } from './trafficMix.js';

/** The section BENCHMARKS.md gets. */
export function renderTrafficMix(rep: TrafficMixReport, mdTable: (head: string[], rows: string[][]) => string): string {
  const anvil = rep.servers.find((s) => s.server === 'anvil');
  const cpuOf = (s: MixServer | undefined, connections: number) => s?.runs.find((r) => r.connections === connections)?.cpuUsPerRequest;
  const rows = rep.servers.flatMap((s) =>
    s.runs.map((r) => {
      const a = cpuOf(anvil, r.connections);
      return [
        s.server,
        String(r.connections),
        String(r.rps),
        r.requestsPerCpuSecond !== undefined ? String(r.requestsPerCpuSecond) : '–',
        r.cpuUsPerRequest !== undefined
          ? `${r.cpuUsPerRequest}${a !== undefined && s.server !== 'anvil' ? ` (${round(r.cpuUsPerRequest / a, 2)}× anvil)` : ''}`
          : '–',
        r.threads ? `${r.threads.servingUs} / ${r.threads.workersUs} / ${r.threads.otherUs}` : '–',
        `${r.p50} / ${r.p99}`,
        s.hitRate !== undefined || s.estimateHitRate !== undefined
          ? `${s.hitRate !== undefined ? `${round(s.hitRate * 100, 1)} %` : '–'} / ${s.estimateHitRate !== undefined ? `${round(s.estimateHitRate * 100, 1)} %` : '–'}`
          : '–',
        String(r.bad),
      ];
    }),
  );
  const table = mdTable(
    [
      'server',
      'connections',
      'req/s',
      'requests per CPU-second',
      'CPU µs per request',
      'of which serving thread / EVM workers / other threads',
      'p50 / p99 ms',
      'cache hit rate: calls / estimates',
      'bad answers',
    ],
    rows,
  );
  const tnMethods = rep.servers.find((s) => s.server === 'tracenode, cache on')?.byMethod ?? [];
  const offMethods = (rep.servers.find((s) => s.server === 'tracenode, cache off')?.byMethod ?? []).map((m) => ({ ...m, method: `${m.method} (cache off)` }));
  const anvilMethods = new Map((anvil?.byMethod ?? []).map((m) => [m.method, m.cpuUsPerRequest]));
  const profile = mdTable(
    [
      'method',
      'share of the mix',
      'tracenode CPU µs per request (cache on)',
      'of which serving thread / EVM workers / other threads',
      "anvil's",
      'tracenode ÷ anvil',
      "µs of the mix's average",
    ],
    [...tnMethods, ...offMethods].map((m) => {
      const a = anvilMethods.get(m.method.replace(' (cache off)', ''));
      const us = m.cpuUsPerRequest;
      const t = m.threads;
      const inMix = !m.method.endsWith('(cache off)');
      return [
        m.method,
        inMix ? `${round(m.share * 100, 1)} %` : '–',
        us !== undefined ? String(us) : '–',
        t ? `${t.servingUs} / ${t.workersUs} / ${t.otherUs}` : '–',
        a !== undefined ? String(a) : '–',
        us !== undefined && a !== undefined ? `${round(us / a, 2)}×` : '–',
        us !== undefined && inMix ? String(round(us * m.share, 1)) : '–',
      ];
    }),
  );
  const diffs = rep.differences.length > 0 ? `\n\nDifferences from anvil's answers:\n${rep.differences.map((d) => `- ${d}`).join('\n')}` : '';
  return `### A provider's traffic mix (bench/trafficMix.ts; ${rep.distinct} distinct requests, shares and draw in its header)\n\nEach server runs the mix ${MIX_WARMUP_S} s before its first measured run (the steady state: bench/trafficMix.ts, MIX_WARMUP_S, says why).\n\n${table}\n\nEach method's requests of the mix alone, 32 connections (what the mix's CPU is made of), and where tracenode's CPU went: its serving thread and EVM workers (their CPU-seconds metrics, as shares of the process's CPU over the run), and the rest of the process (V8's garbage-collection and compiler threads, LevelDB's reads):\n\n${profile}${diffs}`;
}

/**
 * What bounds issue 39's two eth_call targets, with the arithmetic: the view call in process
 * (bench/callCosts.ts) against the per-call CPU and the p50 the targets allow, and what the rest of
 * the case's CPU per request is made of.
 */
export function renderCallBounds(rep: BenchReport, mdTable: (head: string[], rows: string[][]) => string): string | undefined {
  const costs = rep.callCosts;
  const view = rep.cases.find((k) => k.name === 'eth_call view (balanceOf)');
  if (costs === undefined || view === undefined) return undefined;
  const us = (name: string) => costs.costs.find((c) => c.call === name)?.microsPerCall;
  const engine = us('eth_call balanceOf (view)');
  const setup = us('eth_call to an address without code (set-up only)');
  const workers = us('eth_call balanceOf (view) through the EVM workers');
  const serverUs = view.servers.tracenode?.http?.cpuUsPerRequest;
  const anvilUs = view.servers.anvil?.http?.cpuUsPerRequest;
  const anvilP50 = view.servers.anvil?.c1?.p50;
  const floorP50 = view.servers.floor?.c1?.p50;
  if (engine === undefined || setup === undefined) return undefined;
  const f = (x: number) => String(round(x, 1));
  const lines = [
    `- **≤ 100 µs of CPU per call**: the call engine alone, on one thread with no request, thread hop or HTTP around it, takes ${f(engine)} µs a call (${f(setup)} µs of set-up — message, state overlay, EVM, result — and ${f(costs.executionMicros)} µs running the token's bytecode in @ethereumjs/evm's interpreter). ${engine > 100 ? `${f(engine)} > 100: the design card's EVM alone is over the target, whatever surrounds it.` : `${f(engine)} ≤ 100: the EVM alone fits; the rest is ours.`}`,
  ];
  if (anvilUs !== undefined) {
    lines.push(
      `- **≤ 3× anvil's CPU**: anvil's whole request costs ${f(anvilUs)} µs, so 3× is ${f(3 * anvilUs)} µs; the engine alone is ${round(engine / anvilUs, 2)}× anvil's request${engine > 3 * anvilUs ? ': over it before any transport.' : '.'}`,
    );
  }
  if (anvilP50 !== undefined && floorP50 !== undefined) {
    const least = floorP50 + engine / 1000;
    lines.push(
      `- **p50 at one connection ≤ 1.5× anvil's**: anvil's p50 is ${anvilP50} ms, 1.5× is ${round(1.5 * anvilP50, 3)} ms; the least tracenode could answer in is the Fastify floor's p50 (${floorP50} ms, a constant answer) plus the engine's run (${round(engine / 1000, 3)} ms) = ${round(least, 3)} ms${least > 1.5 * anvilP50 ? ': over the target before the thread hop.' : '.'}`,
    );
  }
  const rows: string[][] = [
    ['the call engine: set-up', f(setup), 'in process, the call without bytecode'],
    [
      "the call engine: the token's bytecode (114 opcodes, a cold SLOAD, a KECCAK256)",
      f(costs.executionMicros),
      'in process, balanceOf − the call without bytecode',
    ],
  ];
  if (workers !== undefined)
    rows.push(['the hop to an EVM worker and back (wall time, one call at a time)', f(workers - engine), 'through the workers − in process']);
  if (workers !== undefined && serverUs !== undefined) {
    rows.push([
      'the rest, under 10 connections: HTTP, JSON-RPC, decoding, rendering, V8 GC and compiler threads, and two cores shared by the serving thread, the workers and the load generator',
      f(Math.max(0, serverUs - workers)),
      "by difference: the case's CPU per request − through the workers",
    ]);
    rows.push(['the case: CPU per request of the server, all threads (10 connections)', f(serverUs), 'the case table']);
  }
  return `### What bounds eth_call's targets (issue 39; bench/callCosts.ts, in process)\n\n${renderCallCosts(costs)}\n\n${lines.join('\n')}\n\nWhat the case's CPU per request is made of (µs):\n\n${mdTable(['part', 'µs', 'how measured'], rows)}`;
}

/** Issue 39's targets: the eth_call view case (the run's tracenode has the cache off) and the mix. */
export function trafficMixTargets(rep: BenchReport): Target[] {
  const ISSUE = 39;
  const out: Target[] = [];
  const view = rep.cases.find((k) => k.name === 'eth_call view (balanceOf)');
  const viewUs = view?.servers.tracenode?.http?.cpuUsPerRequest;
  const anvilUs = view?.servers.anvil?.http?.cpuUsPerRequest;
  const target = "eth_call view, cache off: ≤ 100 µs of CPU per call and ≤ 3× anvil's";
  out.push(
    viewUs === undefined || anvilUs === undefined
      ? { issue: ISSUE, target, measured: 'not run', met: null }
      : {
          issue: ISSUE,
          target,
          measured: `${round(viewUs, 0)} µs, ${(viewUs / anvilUs).toFixed(2)}× anvil's ${round(anvilUs, 0)} µs`,
          met: viewUs <= 100 && viewUs <= 3 * anvilUs,
        },
  );
  const p50 = view?.servers.tracenode?.c1?.p50;
  const anvilP50 = view?.servers.anvil?.c1?.p50;
  const latency = "eth_call view, cache off: p50 at one connection ≤ 1.5× anvil's";
  out.push(
    p50 === undefined || anvilP50 === undefined
      ? { issue: ISSUE, target: latency, measured: 'not run', met: null }
      : { issue: ISSUE, target: latency, measured: `${(p50 / anvilP50).toFixed(2)}× (${p50} vs ${anvilP50} ms)`, met: p50 <= 1.5 * anvilP50 },
  );
  const mix = rep.trafficMix;
  const cpu = (server: MixServer['server']) => mix?.servers.find((s) => s.server === server)?.runs.find((r) => r.connections === 32)?.cpuUsPerRequest;
  const anvilMix = cpu('anvil');
  for (const [server, max] of [
    ['tracenode, cache on', 2],
    ['tracenode, cache off', undefined],
  ] as const) {
    const us = cpu(server);
    const what =
      max === undefined
        ? `traffic mix, ${server.slice(11)}: CPU per request against anvil's (information)`
        : `traffic mix, ${server.slice(11)}: CPU per request ≤ ${max}× anvil's (32 connections)`;
    out.push(
      us === undefined || anvilMix === undefined
        ? { issue: ISSUE, target: what, measured: 'not run', met: null }
        : {
            issue: ISSUE,
            target: what,
            measured: `${(us / anvilMix).toFixed(2)}× (${us} vs ${anvilMix} µs)`,
            met: max === undefined ? null : us <= max * anvilMix,
          },
    );
  }
  return out;
}
