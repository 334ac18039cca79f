/**
 * The traffic mix's section of BENCHMARKS.md and issue 39's targets, from a report of
 * bench/trafficMix.ts.
 */
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
        s.hitRate !== undefined ? `${round(s.hitRate * 100, 1)} %` : '–',
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
      'call cache hit rate',
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
