/**
 * The EVM worker pool under load (issue 15), with tracenode started for this section alone on the
 * bench chain's datadir (the main run's tracenode is stopped first: LevelDB allows one process):
 *
 * - Heavy eth_call throughput with 1, 2 and 4 workers (`--execution.evm-workers`), at 8
 *   connections, and the RSS at rest (workers started) and at its peak under that load.
 * - Head-of-line blocking: eth_getStorageAt at latest from one client, idle and while 4 other
 *   clients send the heavy eth_call without pause; on tracenode with the default pool and on
 *   anvil (same chain, same requests), p50/p99 and the ratio loaded/idle.
 * - A batch of 1,000 balanceOf eth_calls: time to its answer, and the latency of eth_blockNumber
 *   sent every 20 ms meanwhile from another connection.
 * - trace_block of the heaviest block, cold (first request after start: worker caches and the
 *   trace cache empty) and warm (answered from the trace cache).
 *
 * Every answer is checked: the heavy call and balanceOf against anvil's answer to the same request.
 */

import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { field, httpPost, parseJson, requestBody, toBatch } from './jsonRpc.js';
import { httpLoad, type Verify } from './load.js';
import { round } from './names.js';
import { API_KEY, rssMiB, sleep, startServer, tracenodeArgs } from './processes.js';
import { type LoadResult, percentiles } from './wsLoad.js';

/** The requests of this section, and anvil's URL for the head-of-line comparison. */
export interface EvmPoolInputs {
  datadir: string;
  anvilUrl: string;
  heavyBody: string;
  viewBody: string;
  storageBody: string;
  traceBlockBody: string;
  quick: boolean;
  durationS: number;
  log: (line: string) => void;
}

export interface EvmPoolThroughput {
  workers: number;
  heavyRps: number;
  heavyP50Ms: number;
  /** Relative to one worker. */
  speedup: number;
  restMiB: number;
  peakMiB: number;
  bad: number;
}

export interface HeadOfLine {
  server: 'tracenode' | 'anvil';
  idle: { p50: number; p99: number };
  loaded: { p50: number; p99: number };
  /** loaded p99 / idle p99. */
  p99Ratio: number;
  heavyRpsMeanwhile: number;
  bad: number;
}

export interface EvmPoolReport {
  defaultWorkers: number;
  throughput: EvmPoolThroughput[];
  headOfLine: HeadOfLine[];
  batch1000: { items: number; ms: number; allRight: boolean; blockNumberP50Ms: number; blockNumberMaxMs: number; blockNumberSamples: number };
  traceBlock: { coldMs: number; warmMs: number };
}

const HEAVY_CONNECTIONS = 8;
const FOREGROUND_CONNECTIONS = 1;
const HEAVY_CLIENTS = 4;

/** The answer text of `body` at `url` (one request), for verifying later answers. */
async function answerOf(url: string, body: string): Promise<string> {
  const { status, text } = await httpPost(url, body);
  if (status !== 200) throw new Error(`HTTP ${status}: ${text.slice(0, 200)}`);
  return text;
}

/** The same result as `reference` (ids and key order aside). */
const sameResult =
  (reference: string): Verify =>
  (text) => {
    const a = field(parseJson(text), 'result');
    return a !== undefined && JSON.stringify(a) === JSON.stringify(field(parseJson(reference), 'result'));
  };

async function startTracenode(datadir: string, workers: number | undefined) {
  return startServer(
    'tracenode',
    tracenodeArgs(
      'serve',
      '--datadir',
      datadir,
      '--api-keys',
      API_KEY,
      '--port',
      '0',
      '--log-level',
      'warn',
      // The same calls over and over: every one runs on a worker (the result cache would answer them).
      '--execution.call-cache-bytes',
      '0',
      ...(workers === undefined ? [] : ['--execution.evm-workers', String(workers)]),
    ),
    /JSON-RPC\s+http:\/\/127\.0\.0\.1:(\d+)\//,
    120_000,
    join(datadir, '..', 'tracenode-pool.log'),
  );
}

/** `foreground` at one connection while `background` (when given) runs at HEAVY_CLIENTS connections. */
async function latencyUnder(url: string, foreground: string, verifyFg: Verify, durationS: number, background?: { body: string; verify: Verify }) {
  const bg = background
    ? httpLoad({ url, headers: {}, body: background.body, verify: background.verify, connections: HEAVY_CLIENTS, durationS: durationS + 1, warmupS: 0 })
    : undefined;
  if (bg) await sleep(500); // the heavy calls are running before the foreground starts
  const fg = await httpLoad({ url, headers: {}, body: foreground, verify: verifyFg, connections: FOREGROUND_CONNECTIONS, durationS, warmupS: 0.3 });
  const bgResult = bg ? await bg : undefined;
  return { fg, bg: bgResult };
}

const bad = (r: LoadResult | undefined) => (r ? r.errors + r.timeouts + r.mismatches + r.non2xx : 0);

export async function measureEvmPool(o: EvmPoolInputs): Promise<EvmPoolReport> {
  const anvil = o.anvilUrl;
  const heavyAnswer = await answerOf(anvil, o.heavyBody);
  const viewAnswer = await answerOf(anvil, o.viewBody);
  const storageAnswer = await answerOf(anvil, o.storageBody);
  const verifyHeavy = sameResult(heavyAnswer);
  const verifyStorage = sameResult(storageAnswer);
  const defaultWorkers = Math.max(1, availableParallelism());
  const poolSizes = o.quick ? [1, 2] : [1, 2, 4];

  // Throughput of the heavy call by pool size, and memory.
  const throughput: EvmPoolThroughput[] = [];
  for (const workers of poolSizes) {
    const tn = await startTracenode(o.datadir, workers);
    try {
      const url = `http://127.0.0.1:${tn.match[1]}/v3/${API_KEY}`;
      await answerOf(url, o.heavyBody); // starts the workers' caches
      await sleep(500);
      const restMiB = rssMiB(tn.proc.pid) ?? 0;
      let peak = restMiB;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssMiB(tn.proc.pid) ?? 0);
      }, 200);
      const r = await httpLoad({
        url,
        headers: {},
        body: o.heavyBody,
        verify: verifyHeavy,
        connections: HEAVY_CONNECTIONS,
        durationS: o.durationS * 2,
        warmupS: 1,
      });
      clearInterval(sampler);
      throughput.push({
        workers,
        heavyRps: round(r.rps, 2),
        heavyP50Ms: round(r.p50, 1),
        speedup: 0,
        restMiB: round(restMiB, 1),
        peakMiB: round(peak, 1),
        bad: bad(r),
      });
      o.log(
        `evm pool: ${workers} worker(s): heavy eth_call ${r.rps.toFixed(2)} req/s at ${HEAVY_CONNECTIONS} connections, RSS ${restMiB.toFixed(0)} → ${peak.toFixed(0)} MiB`,
      );
    } finally {
      await tn.stop();
    }
  }
  for (const t of throughput) t.speedup = round(t.heavyRps / throughput[0].heavyRps, 2);

  // The default pool: head-of-line blocking, the batch, trace_block.
  const tn = await startTracenode(o.datadir, undefined);
  try {
    const url = `http://127.0.0.1:${tn.match[1]}/v3/${API_KEY}`;
    // trace_block cold: the first request of the process for that block.
    let t0 = performance.now();
    const traceText = await answerOf(url, o.traceBlockBody);
    const coldMs = performance.now() - t0;
    t0 = performance.now();
    const again = await answerOf(url, o.traceBlockBody);
    const warmMs = performance.now() - t0;
    if (again !== traceText || !Array.isArray(field(parseJson(traceText), 'result'))) throw new Error('trace_block: no traces, or a different answer warm');
    o.log(`evm pool: trace_block heaviest block cold ${coldMs.toFixed(0)} ms, warm ${warmMs.toFixed(1)} ms`);

    await answerOf(url, o.heavyBody);
    const headOfLine: HeadOfLine[] = [];
    for (const [server, target] of [
      ['tracenode', url],
      ['anvil', anvil],
    ] as const) {
      const idle = await latencyUnder(target, o.storageBody, verifyStorage, o.durationS);
      const loaded = await latencyUnder(target, o.storageBody, verifyStorage, o.durationS, { body: o.heavyBody, verify: verifyHeavy });
      const entry: HeadOfLine = {
        server,
        idle: { p50: round(idle.fg.p50, 3), p99: round(idle.fg.p99, 3) },
        loaded: { p50: round(loaded.fg.p50, 3), p99: round(loaded.fg.p99, 3) },
        p99Ratio: round(loaded.fg.p99 / Math.max(0.001, idle.fg.p99), 2),
        heavyRpsMeanwhile: round(loaded.bg?.rps ?? 0, 2),
        bad: bad(idle.fg) + bad(loaded.fg) + bad(loaded.bg),
      };
      headOfLine.push(entry);
      o.log(
        `evm pool: head-of-line ${server}: eth_getStorageAt p99 ${entry.idle.p99} ms idle, ${entry.loaded.p99} ms with ${HEAVY_CLIENTS} heavy clients (${entry.p99Ratio}x)`,
      );
      await sleep(o.durationS * 1000); // anvil and tracenode finish the heavy calls still queued
    }

    // A batch of 1,000 view calls, and eth_blockNumber meanwhile.
    const items = 1000;
    const batchBody = `[${Array.from({ length: items }, (_, i) => o.viewBody.replace('"id":1', `"id":${i + 1}`)).join(',')}]`;
    const samples: number[] = [];
    let done = false;
    const prober = (async () => {
      const body = requestBody('eth_blockNumber', []);
      while (!done) {
        const s = performance.now();
        await httpPost(url, body);
        samples.push(performance.now() - s);
        await sleep(20);
      }
    })();
    t0 = performance.now();
    const batch = await httpPost(url, batchBody, {}, 120_000);
    const batchMs = performance.now() - t0;
    done = true;
    await prober;
    const answers = toBatch(parseJson(batch.text)) ?? [];
    const viewResult = field(parseJson(viewAnswer), 'result');
    const allRight = answers.length === items && answers.every((a) => a.result === viewResult);
    const p = percentiles(samples);
    o.log(
      `evm pool: batch of ${items} eth_calls ${batchMs.toFixed(0)} ms (${allRight ? 'all right' : 'WRONG'}); eth_blockNumber meanwhile p50 ${p.p50.toFixed(2)} ms, max ${Math.max(...samples).toFixed(1)} ms (${samples.length} samples)`,
    );
    return {
      defaultWorkers,
      throughput,
      headOfLine,
      batch1000: {
        items,
        ms: round(batchMs, 1),
        allRight,
        blockNumberP50Ms: round(p.p50, 3),
        blockNumberMaxMs: round(Math.max(0, ...samples), 2),
        blockNumberSamples: samples.length,
      },
      traceBlock: { coldMs: round(coldMs, 1), warmMs: round(warmMs, 2) },
    };
  } finally {
    await tn.stop();
  }
}
