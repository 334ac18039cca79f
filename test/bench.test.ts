// The benchmark harness (bench/runBench.ts, `npm run bench`) in --quick mode on a tiny chain: it must
// produce a well-formed table with non-zero throughput and no wrong answer from any server. Speed
// is not asserted (the machines are shared); BENCHMARKS.md and bench/results/ are not written.
import { expect, it } from 'vitest';
import { renderTables } from '../bench/report.js';
import { badCount } from '../bench/results.js';
import { runBench } from '../bench/runBench.js';
import type { LoadResult } from '../bench/wsLoad.js';
import { describeWithFoundry } from './helpers/foundry.js';

const CASES = ['eth_blockNumber', 'eth_getStorageAt latest', 'eth_call revert'];

describeWithFoundry(['anvil'], 'the benchmark harness test')('benchmark harness', () => {
  it('runs --quick on a tiny chain: a table for tracenode, anvil and the floors, non-zero throughput, every answer right', async () => {
    const report = await runBench({
      quick: true,
      blocks: 24,
      only: CASES,
      durationS: 0.75,
      warmupS: 0.25,
      probeS: 0.25,
      globalWarmupS: 0.1, // runs the warm-up on every server, as a full run does
      idleSockets: 100,
      log: () => {},
    });
    expect(report.cases.map((c) => c.name)).toEqual(CASES);
    for (const k of report.cases) {
      expect(k.problems, k.name).toEqual([]);
      expect(k.crossCheck, k.name).toMatch(/^equal/);
      for (const server of ['tracenode', 'anvil', 'floor'] as const) {
        const run = k.servers[server];
        expect(run, `${k.name} ${server}`).toBeDefined();
        for (const r of [run!.http, run!.ws] as (LoadResult | undefined)[]) {
          expect(r, `${k.name} ${server}`).toBeDefined();
          expect(r!.requests, `${k.name} ${server}`).toBeGreaterThan(0);
          expect(r!.rps, `${k.name} ${server}`).toBeGreaterThan(0);
          expect(badCount(r), `${k.name} ${server}: ${r!.firstMismatch ?? ''}`).toBe(0);
          expect(r!.p50).toBeGreaterThan(0);
          expect(r!.p99).toBeGreaterThanOrEqual(r!.p50);
        }
        expect(run!.c1!.requests, `${k.name} ${server} one connection`).toBeGreaterThan(0);
      }
      // The node:http floor runs (HTTP only) for the transport-bound cases.
      const nodeFloor = k.servers.nodeFloor;
      if (k.name === 'eth_call revert') expect(nodeFloor).toBeUndefined();
      else {
        expect(nodeFloor?.http?.requests, k.name).toBeGreaterThan(0);
        expect(badCount(nodeFloor!.http), k.name).toBe(0);
        expect(nodeFloor!.ws).toBeUndefined();
      }
    }
    expect(report.import!.tracenode.blocksPerSecond).toBeGreaterThan(0);
    expect(report.import!.raw.blocksPerSecond).toBeGreaterThan(0);
    expect(report.memory.restMiB).toBeGreaterThan(0);
    expect(report.memory.idleSocketsOpen).toBe(100);

    // The table: the ratio and absolute sections, one row per case, well-formed markdown rows.
    const table = renderTables(report);
    expect(table).toContain('### Ratios');
    expect(table).toContain('### Absolute figures');
    expect(table).toContain('### Import');
    for (const k of report.cases) expect(table).toMatch(new RegExp(`^\\| ${k.name.replace(/[()]/g, '\\$&')}\\s+\\| \\d+\\.\\d\\d× `, 'm'));
    for (const block of table.split('\n\n').filter((b) => b.startsWith('|'))) {
      const widths = block.split('\n').map((l) => l.split('|').length);
      expect(new Set(widths).size, block.slice(0, 200)).toBe(1);
    }
    expect(table).not.toContain('### Problems');
  }, 240_000);
});
