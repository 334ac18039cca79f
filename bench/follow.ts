/**
 * Following an upstream node (issue 16), against the bench's anvil, which serves the bench chain:
 *
 * - Catch-up: `tracenode follow` of the whole chain into a genesis-only datadir (blocks rebuilt from
 *   anvil's JSON), next to `tracenode import` of the same chain's RLP into another one, in the same
 *   run: blocks/s and Mgas/s of each, and the ratio.
 * - Reads during catch-up: eth_getStorageAt at latest from one connection on `serve --follow` of a
 *   genesis-only datadir while it catches up, and of the datadir `follow` filled (p50/p99, ratio).
 * - Live: with that node caught up over `ws://` (new heads pushed), anvil mines `blocks` empty blocks
 *   one at a time; for each, the time from evm_mine's answer to tracenode answering eth_blockNumber
 *   with it (polled every 2 ms), p50/p99 (empty blocks: their execution is next to nothing).
 *
 * Runs last: it mines blocks on the bench's anvil.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpPost, parseJson, requestBody, rpcResult } from './jsonRpc.js';
import { httpLoad } from './load.js';
import { round } from './names.js';
import { API_KEY, runCommand, sleep, startServer, tracenodeArgs } from './processes.js';
import { percentiles } from './wsLoad.js';

export interface FollowInputs {
  chainDir: string;
  anvilUrl: string;
  storageBody: string;
  head: number;
  liveBlocks: number;
  durationS: number;
  log: (line: string) => void;
}

export interface FollowReport {
  blocks: number;
  follow: { seconds: number; blocksPerS: number; mgasPerS: number };
  import: { seconds: number; blocksPerS: number; mgasPerS: number };
  /** follow blocks/s ÷ import blocks/s. */
  ratio: number;
  readsDuringCatchUp: { catchingUp: { p50: number; p99: number; requests: number }; idle: { p50: number; p99: number }; p99Ratio: number };
  live: { blocks: number; p50Ms: number; p99Ms: number; maxMs: number };
}

/** Runs tracenode (the built dist/cli.js) to completion; its seconds. */
async function tracenode(args: string[]): Promise<number> {
  const t0 = performance.now();
  const r = await runCommand(process.execPath, tracenodeArgs(...args), { timeoutMs: 3_600_000 });
  if (r.code !== 0) throw new Error(`tracenode ${args[0]} exited ${r.code}: ${r.stderr.slice(-500)}`);
  return (performance.now() - t0) / 1000;
}

/** The gas used by blocks 1..head on the upstream, in batch requests of 100. */
async function totalGas(url: string, head: number): Promise<number> {
  let gas = 0;
  for (let from = 1; from <= head; from += 100) {
    const body = JSON.stringify(
      Array.from({ length: Math.min(100, head - from + 1) }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'eth_getBlockByNumber',
        params: [`0x${(from + i).toString(16)}`, false],
      })),
    );
    const answers = parseJson((await httpPost(url, body)).text) as Array<{ result?: { gasUsed?: string } }>;
    for (const a of answers) gas += Number(a.result?.gasUsed ?? 0);
  }
  return gas;
}

export async function measureFollow(o: FollowInputs): Promise<FollowReport> {
  const work = mkdtempSync(join(tmpdir(), 'tracenode-bench-follow-'));
  try {
    const genesis = join(o.chainDir, 'genesis.json');
    const gasUsed = await totalGas(o.anvilUrl, o.head);
    const speed = (seconds: number) => ({ seconds: round(seconds, 1), blocksPerS: round(o.head / seconds, 1), mgasPerS: round(gasUsed / 1e6 / seconds, 2) });
    // Offline import and follow of the same chain, one after the other.
    const imported = join(work, 'imported');
    await tracenode(['init', '--datadir', imported, '--genesis', genesis]);
    const importS = await tracenode(['import', '--datadir', imported, join(o.chainDir, 'chain.rlp')]);
    const followed = join(work, 'followed');
    await tracenode(['init', '--datadir', followed, '--genesis', genesis]);
    const followS = await tracenode(['follow', '--datadir', followed, '--follow', o.anvilUrl]);
    const report: Partial<FollowReport> = { blocks: o.head, follow: speed(followS), import: speed(importS), ratio: round(importS / followS, 2) };
    o.log(`follow: catch-up of ${o.head} blocks ${speed(followS).blocksPerS} blocks/s (import ${speed(importS).blocksPerS} blocks/s, ${report.ratio}x)`);

    // Reads while a serving node catches up (a genesis-only datadir), then on one that is caught
    // up (the datadir `follow` just filled), which also serves the live part.
    const wsUrl = o.anvilUrl.replace(/^http/, 'ws');
    const serveFollowing = (datadir: string, name: string) =>
      startServer(
        'tracenode',
        tracenodeArgs('serve', '--datadir', datadir, '--api-keys', API_KEY, '--port', '0', '--log-level', 'warn', '--follow', wsUrl),
        /JSON-RPC\s+http:\/\/127\.0\.0\.1:(\d+)\//,
        120_000,
        join(work, `${name}.log`),
      );
    const anyWord = (text: string) => /"result":"0x[0-9a-f]*"/.test(text);
    const reads = (url: string) =>
      httpLoad({ url, headers: {}, body: o.storageBody, verify: anyWord, connections: 1, durationS: Math.min(o.durationS, 3), warmupS: 0.5 });
    const fresh = join(work, 'fresh');
    await tracenode(['init', '--datadir', fresh, '--genesis', genesis]);
    const catching = await serveFollowing(fresh, 'catching-up');
    let during: Awaited<ReturnType<typeof reads>>;
    let lag: number;
    try {
      const base = `http://127.0.0.1:${catching.match[1]}`;
      // Measure while blocks are being executed, past the follower's start.
      const t0 = Date.now();
      while (Date.now() - t0 < 120_000) {
        const h = ((await (await fetch(`${base}/health`)).json()) as { head?: { number?: number } }).head?.number ?? 0;
        if (h >= Math.min(50, o.head / 4)) break;
        await sleep(100);
      }
      during = await reads(`${base}/v3/${API_KEY}`);
      lag = (((await (await fetch(`${base}/health`)).json()) as { lagBlocks?: number }).lagBlocks ?? -1) as number;
    } finally {
      await catching.stop();
    }
    const tn = await serveFollowing(followed, 'caught-up');
    try {
      const base = `http://127.0.0.1:${tn.match[1]}`;
      const url = `${base}/v3/${API_KEY}`;
      const idle = await reads(url);
      report.readsDuringCatchUp = {
        catchingUp: { p50: round(during.p50, 3), p99: round(during.p99, 3), requests: during.requests },
        idle: { p50: round(idle.p50, 3), p99: round(idle.p99, 3) },
        p99Ratio: round(during.p99 / Math.max(0.001, idle.p99), 2),
      };
      o.log(
        `follow: eth_getStorageAt p99 ${report.readsDuringCatchUp.catchingUp.p99} ms while catching up (still ${lag} blocks behind at the end), ${report.readsDuringCatchUp.idle.p99} ms caught up (${report.readsDuringCatchUp.p99Ratio}x)`,
      );

      // Live: anvil mines one block at a time; how long until tracenode serves it.
      await rpcResult(o.anvilUrl, 'anvil_setBlockTimestampInterval', [12]);
      const latencies: number[] = [];
      for (let i = 0; i < o.liveBlocks; i++) {
        await rpcResult(o.anvilUrl, 'evm_mine', []);
        const mined = performance.now();
        const target = Number((await rpcResult(o.anvilUrl, 'eth_blockNumber', [])) as string);
        for (;;) {
          const { text } = await httpPost(url, requestBody('eth_blockNumber', []));
          if (Number((parseJson(text) as { result?: string }).result) >= target) break;
          if (performance.now() - mined > 30_000) throw new Error(`follow: block ${target} not served after 30 s`);
          await sleep(2);
        }
        latencies.push(performance.now() - mined);
      }
      const p = percentiles(latencies);
      report.live = { blocks: latencies.length, p50Ms: round(p.p50, 1), p99Ms: round(p.p99, 1), maxMs: round(Math.max(...latencies), 1) };
      o.log(
        `follow: new block served ${report.live.p50Ms} ms (p50) / ${report.live.p99Ms} ms (p99) after anvil mined it, ${latencies.length} blocks over ws://`,
      );
    } finally {
      await tn.stop();
    }
    return report as FollowReport;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
