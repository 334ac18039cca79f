// The benchmark harness (bench/runBench.ts, `npm run bench`) in --quick mode on a tiny chain, cut
// to what catches breakage: one transport-bound case (measured against the node:http floor too)
// and one error answer (a code-3 revert with its data), short runs. Every answer must be
// cross-checked equal between tracenode and anvil, no case may report a problem, and the tables
// must be well-formed with one row per case. Speed is not asserted (the machines are shared);
// BENCHMARKS.md and bench/results/ are not written.
import { availableParallelism } from 'node:os';
import { expect, it } from 'vitest';
import { renderTables } from '../bench/report.js';
import { badCount, type CaseResult } from '../bench/results.js';
import { runBench } from '../bench/runBench.js';
import { describeWithFoundry } from './helpers/foundry.js';

/** Selected by `--only` (names containing them); the second also selects the every-control variant. */
const ONLY = ['eth_getStorageAt latest', 'eth_call revert'];
const CASES = ['eth_getStorageAt latest', 'eth_getStorageAt latest (every control on)', 'eth_call revert'];
const IDLE_SOCKETS = 100;
const CONNECTIONS = 4;
const FLOOR = 'its constant answer';

/** The tables of a rendered report: each a list of rows, each row a list of trimmed cells (header and separator dropped). */
function tableRows(block: string): string[][] {
  return block
    .split('\n')
    .slice(2)
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
}

describeWithFoundry(['anvil'], 'the benchmark harness test')('benchmark harness', () => {
  it('runs --quick on a tiny chain: every answer right and cross-checked, the tables well-formed', async () => {
    const report = await runBench({
      quick: true,
      blocks: 24,
      only: ONLY,
      durationS: 0.3,
      warmupS: 0,
      probeS: 0.2,
      connections: CONNECTIONS,
      globalWarmupS: 0.1, // runs the warm-up on every server, as a full run does
      idleSockets: IDLE_SOCKETS,
      log: () => {},
    });
    expect(report.mode).toBe('quick');
    expect(report.settings).toEqual({ blocks: 24, durationS: 0.3, warmupS: 0, probeS: 0.2, connections: CONNECTIONS, only: ONLY });
    expect(report.chain.head).toBe(24);
    expect(report.cases.map((c) => c.name)).toEqual(CASES);

    const [storage, controlled, revert] = report.cases;
    expect(storage.crossCheck).toBe('equal');
    expect(controlled.crossCheck).toBe('equal');
    expect(revert.crossCheck).toBe('equal');
    const checked = (k: CaseResult) => Object.fromEntries(Object.entries(k.servers).map(([server, run]) => [server, run?.checkedAgainst]));
    // The node:http floor runs (HTTP only) for the transport-bound cases only.
    expect(checked(storage)).toEqual({
      floor: FLOOR,
      nodeFloor: FLOOR,
      tracenode: "tracenode's answer fetched before the run",
      anvil: "tracenode's answer (cross-checked)",
    });
    expect(checked(controlled)).toEqual(checked(storage));
    expect(checked(revert)).toEqual({
      floor: FLOOR,
      tracenode: "tracenode's answer fetched before the run",
      anvil: "tracenode's answer (cross-checked)",
    });
    for (const k of report.cases) {
      expect(k.problems, k.name).toEqual([]);
      for (const [server, run] of Object.entries(k.servers)) {
        const transports = server === 'nodeFloor' ? ([run?.http] as const) : ([run?.http, run?.ws] as const);
        if (server === 'nodeFloor') expect(run?.ws).toBeUndefined();
        for (const r of transports) {
          expect(r, `${k.name} ${server}`).toBeDefined();
          expect(r!.requests, `${k.name} ${server}`).toBeGreaterThan(0);
          expect(badCount(r), `${k.name} ${server}: ${r!.firstMismatch ?? ''}`).toBe(0);
          expect(r!.p50).toBeGreaterThan(0);
          expect(r!.p99).toBeGreaterThanOrEqual(r!.p50);
          // CPU per request, from /proc: every server's process is read (anvil's too). Times its
          // request rate, it is the cores the server kept busy over the window: no more than the
          // machine has, and not next to nothing — what a unit mistake would break (clock ticks
          // read as µs: 10,000 times off). The floor is low: on a machine whose cores other
          // processes keep busy, the load generator itself is starved (a loaded run measured anvil
          // at 0.033 cores).
          const cores = (r!.cpuUsPerRequest! * r!.rps) / 1e6;
          expect(cores, `${k.name} ${server} cores busy`).toBeLessThanOrEqual(availableParallelism() + 0.5);
          expect(cores, `${k.name} ${server} cores busy`).toBeGreaterThan(0.002);
        }
        expect(run?.c1?.requests, `${k.name} ${server} one connection`).toBeGreaterThan(0);
      }
    }
    // Figures cached with the chain: 24 blocks imported by tracenode and by raw @ethereumjs/vm.
    expect(report.import?.tracenode.blocks).toBe(24);
    expect(report.import?.raw.blocks).toBe(24);
    expect(report.memory.restMiB).toBeGreaterThan(0);
    expect(report.memory.idleSockets).toBe(IDLE_SOCKETS);
    expect(report.memory.idleSocketsOpen).toBe(IDLE_SOCKETS);
    // Only the eth_getStorageAt targets were measured (throughput, and CPU per request).
    expect(report.targets.filter((t) => t.measured !== 'not run').map((t) => t.target)).toEqual([
      'eth_getStorageAt at latest ≥ 0.8× the floor over HTTP',
      '(same, against the bare node:http floor: information)',
      'eth_getStorageAt at latest, every control on, ≥ 0.85× the floor over HTTP',
      'eth_getStorageAt at latest, every control on, ≥ 0.60× the floor over WebSocket',
      "eth_getStorageAt latest (every control on): CPU per request ≤ 1.3× the bare node:http echo's, HTTP keep-alive",
      "eth_getStorageAt latest (every control on): CPU per request ≤ 1.2× the echo's, WebSocket",
    ]);
    // What each control costs, in process: every step measured.
    expect(report.pipelineCosts?.map((c) => c.step)).toEqual([
      'dispatch alone (no pipeline)',
      'pipeline (session, metrics), open key',
      '+ access log line (info)',
      '+ allowlists (origins, user agents, methods, contracts)',
      '+ rate limit (never reached)',
      '+ daily quota (never reached)',
      'authentication: key only',
      'authentication: key + HTTP Basic secret',
      'authentication: key + JWT (ES256)',
    ]);
    for (const c of report.pipelineCosts ?? []) expect(c.microsPerMessage, c.step).toBeGreaterThan(0);

    const table = renderTables(report);
    const blocks = table.split('\n\n');
    const headings = blocks.filter((b) => b.startsWith('### ')).map((h) => h.replace(/[:(].*$/s, '').trim());
    expect(headings).toEqual([
      '### Ratios',
      '### Absolute figures',
      '### CPU time per answered request, µs',
      '### Import',
      '### tracenode memory',
      '### What each operator control costs a message',
      '### Targets',
    ]);
    const tables = blocks.filter((b) => b.startsWith('|'));
    expect(tables).toHaveLength(headings.length);
    // Well-formed: within a table every line is padded to the same width and has the same cells.
    for (const t of tables) {
      const lines = t.split('\n');
      expect(new Set(lines.map((l) => l.length)).size, t.slice(0, 200)).toBe(1);
      expect(new Set(lines.map((l) => l.split('|').length)).size, t.slice(0, 200)).toBe(1);
    }
    const [ratios, absolute] = tables.map(tableRows);
    const ratio = /^\d+\.\d\d×$/;
    expect(ratios.map((r) => r[0])).toEqual(CASES);
    for (const [name, tnFloor, tnNodeFloor, tnAnvil, wsFloor, wsAnvil, latency, answer] of ratios) {
      for (const cell of [tnFloor, tnAnvil, wsFloor, wsAnvil, latency]) expect(cell, name).toMatch(ratio);
      expect(tnNodeFloor, name).toMatch(name === 'eth_call revert' ? /^–$/ : ratio);
      expect(answer, name).toBe('equal');
    }
    expect(absolute.map((r) => [r[0], r[1], r[6]])).toEqual([
      ['eth_getStorageAt latest', 'HTTP', '0/0/0/0'],
      ['', 'WS', '0/0/0/0'],
      ['', '1 conn p50/p99', ''],
      ['eth_getStorageAt latest (every control on)', 'HTTP', '0/0/0/0'],
      ['', 'WS', '0/0/0/0'],
      ['', '1 conn p50/p99', ''],
      ['eth_call revert', 'HTTP', '0/0/0'],
      ['', 'WS', '0/0/0'],
      ['', '1 conn p50/p99', ''],
    ]);
    expect(table).not.toContain('### Problems');
  }, 120_000);
});
