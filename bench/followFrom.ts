/**
 * Following from block N (issue 26, part B), against an anvil that holds the bench chain (it serves
 * no debug_executionWitness: each block's state comes from a prestateTracer trace and batched
 * eth_getProof at its parent):
 *
 * - Start: `tracenode serve --follow URL --from latest` on an empty datadir, until the first
 *   correct answer at the head (eth_getBalance of the token holder at latest, anvil's).
 * - Catch-up from a checkpoint: the last `blocks` blocks of the chain (its heaviest, the churn of
 *   storage cells) followed from head−blocks in this process, next to importing the same blocks
 *   into a datadir that holds the chain up to head−blocks: Mgas/s of each, the ratio, and upstream
 *   calls per block.
 * - First read of never-touched state: eth_getBalance over HTTP of accounts the followed blocks
 *   never touched, against anvil's own eth_getProof latency for such accounts (medians).
 * - Bytes stored per block followed (the state the archive holds: nodes and code), against what a
 *   from-genesis archive adds for the same blocks.
 *
 *   npx tsx bench/followFrom.ts [blocks of the chain, 400] [blocks followed, 60]
 *
 * `npm run bench` runs it as its "from block N" section (`benchFollowFrom`).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type EthereumChain, openChain } from '../src/chain/open.js';
import { initArchiveFrom } from '../src/cli/archiveFrom.js';
import { createEthereumNetwork } from '../src/cli/networks.js';
import { defaultConfig } from '../src/config/settings.js';
import { PREFIX } from '../src/db/keys.js';
import { Follower } from '../src/follow/follower.js';
import { Upstream } from '../src/follow/upstream.js';
import { UpstreamStateSource } from '../src/follow/upstreamState.js';
import { importBlocks } from '../src/import/importChain.js';
import { initDatadir } from '../src/import/init.js';
import { splitRlpItems } from '../src/import/rlpFile.js';
import { KeyRegistry, openKeys } from '../src/pipeline/keys.js';
import { buildServer } from '../src/transport/server.js';
import { httpPost, parseJson, requestBody, rpcResult } from './jsonRpc.js';
import { round } from './names.js';
import { API_KEY, processCpuSeconds, startServer, tracenodeArgs } from './processes.js';
import { percentiles } from './wsLoad.js';

export interface FollowFromInputs {
  /** The chain's genesis.json and chain.rlp. */
  chainDir: string;
  anvilUrl: string;
  head: number;
  /** Blocks followed from the checkpoint head−blocks. */
  blocks: number;
  /** An account whose balance is read at the head (the token holder). */
  holder: string;
  /** Accounts the last `blocks` blocks never touch (bench users). */
  untouched: string[];
  /** anvil's CPU seconds so far (its process, from /proc). */
  anvilCpu?: () => number | undefined;
  log: (line: string) => void;
}

export interface FollowFromReport {
  start: { seconds: number; head: number };
  /** The same start with the run's bench chain on the run's anvil as the upstream. */
  startOnBenchChain?: { seconds: number; head: number };
  catchUp: {
    blocks: number;
    follow: { seconds: number; mgasPerS: number };
    import: { seconds: number; mgasPerS: number };
    ratio: number;
    callsPerBlock: number;
    source: string;
    /** CPU seconds of this process while following and while importing, and anvil's while it served the follower. */
    cpu: { follow: number; import: number; upstream?: number };
  };
  /** `fetched`: how many of the reads needed the upstream (the others found the account's path held). */
  /** The same blocks followed from a from-genesis tracenode (the witness source). */
  witnessCatchUp?: {
    follow: { seconds: number; mgasPerS: number };
    ratio: number;
    callsPerBlock: number;
    source: string;
    /** CPU seconds of this process while following, of import (the same as catchUp's), and of the upstream tracenode's process. */
    cpu?: { follow: number; import: number; upstream?: number };
  };
  firstRead: { p50Ms: number; upstreamProofP50Ms: number; overMs: number; reads: number; fetched: number };
  bytesPerBlock: { followed: number; fromGenesis: number };
}

const config = () => {
  const c = defaultConfig();
  c.execution.evmWorkers = 1;
  c.follow.pollIntervalMs = 50;
  return c;
};

/** Bytes (keys and values) of the trie nodes and code a datadir holds. */
async function stateBytes(chain: EthereumChain): Promise<number> {
  let bytes = 0;
  for await (const [k, v] of chain.level.iterator({ gte: Uint8Array.of(PREFIX.state), lt: Uint8Array.of(PREFIX.state + 1) })) bytes += k.length + v.length;
  return bytes;
}

/** `tracenode serve --from latest` on an empty datadir: seconds until eth_getBalance of `holder` at the head is anvil's. */
async function timeToFirstAnswer(o: FollowFromInputs, work: string): Promise<{ seconds: number; head: number }> {
  const head = Number((await rpcResult(o.anvilUrl, 'eth_blockNumber', [])) as string);
  const want = await rpcResult(o.anvilUrl, 'eth_getBalance', [o.holder, `0x${head.toString(16)}`]);
  const t0 = performance.now();
  const args = tracenodeArgs('serve', '--datadir', join(work, 'latest'), '--api-keys', API_KEY, '--port', '0', '--log-level', 'warn', '--follow', o.anvilUrl);
  const serve = await startServer('tracenode', [...args, '--from', 'latest'], /JSON-RPC\s+http:\/\/127\.0\.0\.1:(\d+)\//, 120_000, join(work, 'latest.log'));
  try {
    const url = `http://127.0.0.1:${serve.match[1]}/v3/${API_KEY}`;
    for (;;) {
      const answer = parseJson((await httpPost(url, requestBody('eth_getBalance', [o.holder, `0x${head.toString(16)}`]))).text) as { result?: string };
      if (answer.result === want) return { seconds: round((performance.now() - t0) / 1000, 2), head };
      if (performance.now() - t0 > 120_000) throw new Error(`followFrom: no correct answer at block ${head} after 120 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    await serve.stop();
  }
}

/**
 * Imports the chain up to `from` into a fresh datadir (and a copy of it, `full`, for a
 * from-genesis follower), then times the import of the blocks after it.
 */
async function importAfter(
  o: FollowFromInputs,
  work: string,
  from: number,
): Promise<{ seconds: number; gas: number; bytes: number; full: string; cpuSeconds: number }> {
  const datadir = join(work, 'imported');
  const full = join(work, 'full');
  await initDatadir(datadir, readFileSync(join(o.chainDir, 'genesis.json'), 'utf8'), config());
  const items = splitRlpItems(readFileSync(join(o.chainDir, 'chain.rlp')));
  let chain = await openChain(datadir, config().caches);
  await importBlocks(chain, [Buffer.concat(items.slice(0, from))], config().import);
  await chain.close();
  cpSync(datadir, full, { recursive: true });
  chain = await openChain(datadir, config().caches);
  try {
    const rest = Buffer.concat(items.slice(from, o.head));
    const before = await stateBytes(chain);
    const cpu0 = process.cpuUsage();
    const r = await importBlocks(chain, [rest], config().import);
    const cpu = process.cpuUsage(cpu0);
    return { seconds: r.seconds, gas: Number(r.gasUsed), bytes: (await stateBytes(chain)) - before, full, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
  } finally {
    await chain.close();
  }
}

/** A from-genesis datadir at `from` follows anvil to its head: seconds. */
async function followFull(o: FollowFromInputs, datadir: string): Promise<number> {
  const c = config();
  const chain = await openChain(datadir, c.caches);
  const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
  const follower = new Follower(chain, new Upstream(o.anvilUrl, { requestTimeoutMs: 30_000 }), { settings: c.follow, importSettings: c.import, log: silent });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await follower.runOnce();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  o.log(`followFrom: this process's CPU while a from-genesis archive follows: ${round((cpu.user + cpu.system) / 1e6, 2)} s of ${round(seconds, 2)} s`);
  await follower.stop();
  await chain.close();
  return seconds;
}

/**
 * An archive from block `from` of `upstreamUrl` follows it to its head: seconds, what it fetched,
 * its state bytes, this process's CPU and the upstream's (`upstreamCpu`: its process's clock; anvil's by default).
 */
async function followFromCheckpoint(o: FollowFromInputs, datadir: string, upstreamUrl: string, from: number, upstreamCpu?: () => number | undefined) {
  const c = config();
  await initArchiveFrom(datadir, upstreamUrl, { at: String(from), genesisText: readFileSync(join(o.chainDir, 'genesis.json'), 'utf8') }, c, () => undefined);
  const chain = await openChain(datadir, c.caches);
  const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
  const follower = new Follower(chain, new Upstream(upstreamUrl, { requestTimeoutMs: 30_000 }), { settings: c.follow, importSettings: c.import, log: silent });
  try {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    upstreamCpu ??= upstreamUrl === o.anvilUrl ? o.anvilCpu : undefined;
    const upstream0 = upstreamCpu?.();
    await follower.runOnce();
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const upstream1 = upstream0 === undefined ? undefined : upstreamCpu?.();
    const stats = follower.status().stateFetch!;
    const followed = Number((await chain.store.head())!.number) - from;
    o.log(`followFrom: CPU of this process ${round((cpu.user + cpu.system) / 1e6, 2)} s of ${round(seconds, 2)} s; fetched ${JSON.stringify(stats)}`);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    const upstreamCpuSeconds = upstream0 === undefined || upstream1 === undefined ? undefined : upstream1 - upstream0;
    return { seconds, stats, followed, bytes: await stateBytes(chain), cpuSeconds, upstreamCpuSeconds };
  } finally {
    await follower.stop();
    await chain.close();
  }
}

export async function measureFollowFrom(o: FollowFromInputs): Promise<FollowFromReport> {
  const work = mkdtempSync(join(tmpdir(), 'tracenode-bench-from-'));
  try {
    const start = await timeToFirstAnswer(o, work);
    o.log(`followFrom: serve --from latest on an empty datadir answered at the head (block ${start.head}) after ${start.seconds} s`);
    const from = o.head - o.blocks;
    const imported = await importAfter(o, work, from);
    const fullS = await followFull(o, imported.full);
    o.log(`followFrom: a from-genesis archive follows the same blocks at ${round(imported.gas / 1e6 / fullS, 2)} Mgas/s`);
    const speed = (seconds: number) => ({ seconds: round(seconds, 2), mgasPerS: round(imported.gas / 1e6 / seconds, 2) });
    const calls = (r: { stats: { calls: Record<string, number> }; followed: number }) =>
      round(Object.values(r.stats.calls).reduce((a, b) => a + b, 0) / r.followed, 1);
    // anvil: the prestate source.
    const prestate = await followFromCheckpoint(o, join(work, 'followed'), o.anvilUrl, from);
    const catchUp = {
      blocks: prestate.followed,
      follow: speed(prestate.seconds),
      import: speed(imported.seconds),
      ratio: round(imported.seconds / prestate.seconds, 2),
      callsPerBlock: calls(prestate),
      source: prestate.stats.source ?? '?',
      cpu: {
        follow: round(prestate.cpuSeconds, 2),
        import: round(imported.cpuSeconds, 2),
        ...(prestate.upstreamCpuSeconds !== undefined ? { upstream: round(prestate.upstreamCpuSeconds, 2) } : {}),
      },
    };
    o.log(
      `followFrom: ${catchUp.blocks} blocks from block ${from}: ${catchUp.follow.mgasPerS} Mgas/s (${catchUp.source}, ${catchUp.callsPerBlock} upstream calls/block), import of the same blocks ${catchUp.import.mgasPerS} Mgas/s: ${catchUp.ratio}x; CPU s: follow ${catchUp.cpu.follow}, import ${catchUp.cpu.import}, anvil ${catchUp.cpu.upstream ?? '?'}`,
    );
    // A from-genesis tracenode serving the chain: the witness source.
    const served = await startServer(
      'tracenode',
      tracenodeArgs('serve', '--datadir', join(work, 'imported'), '--api-keys', API_KEY, '--port', '0', '--log-level', 'warn'),
      /JSON-RPC\s+http:\/\/127\.0\.0\.1:(\d+)\//,
      120_000,
      join(work, 'upstream.log'),
    );
    let witnessCatchUp: FollowFromReport['witnessCatchUp'];
    try {
      const witness = await followFromCheckpoint(o, join(work, 'witness'), `http://127.0.0.1:${served.match[1]}/v3/${API_KEY}`, from, () =>
        processCpuSeconds(served.proc.pid),
      );
      const cpu = {
        follow: round(witness.cpuSeconds, 2),
        import: round(imported.cpuSeconds, 2),
        ...(witness.upstreamCpuSeconds !== undefined ? { upstream: round(witness.upstreamCpuSeconds, 2) } : {}),
      };
      witnessCatchUp = {
        follow: speed(witness.seconds),
        ratio: round(imported.seconds / witness.seconds, 2),
        callsPerBlock: calls(witness),
        source: witness.stats.source ?? '?',
        cpu,
      };
      o.log(
        `followFrom: the same blocks from a from-genesis tracenode: ${witnessCatchUp.follow.mgasPerS} Mgas/s (${witnessCatchUp.source}, ${witnessCatchUp.callsPerBlock} upstream calls/block): ${witnessCatchUp.ratio}x import; CPU s: follow ${cpu.follow}, upstream ${cpu.upstream ?? '?'}`,
      );
    } finally {
      await served.stop();
    }
    const firstRead = await firstReads(o, work);
    o.log(
      `followFrom: first read of never-touched state ${firstRead.p50Ms} ms (p50, ${firstRead.fetched} of ${firstRead.reads} fetched), anvil's eth_getProof ${firstRead.upstreamProofP50Ms} ms: +${firstRead.overMs} ms`,
    );
    const bytesPerBlock = { followed: Math.round(prestate.bytes / prestate.followed), fromGenesis: Math.round(imported.bytes / o.blocks) };
    o.log(`followFrom: state bytes stored per block followed ${bytesPerBlock.followed}, a from-genesis archive ${bytesPerBlock.fromGenesis}`);
    return { start, catchUp, witnessCatchUp, firstRead, bytesPerBlock };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * First reads of state never read before: an archive from anvil's head, holding nothing, serves
 * eth_getBalance of accounts over HTTP; against anvil's own eth_getProof of other accounts.
 */
async function firstReads(o: FollowFromInputs, work: string): Promise<FollowFromReport['firstRead']> {
  const c = config();
  const datadir = join(work, 'reads');
  await initArchiveFrom(datadir, o.anvilUrl, { at: 'latest', genesisText: readFileSync(join(o.chainDir, 'genesis.json'), 'utf8') }, c, () => undefined);
  const chain = await openChain(datadir, c.caches);
  const source = new UpstreamStateSource(new Upstream(o.anvilUrl, { requestTimeoutMs: 30_000 }), chain.store, chain.start!);
  const network = await createEthereumNetwork(chain, { name: 'mainnet', hostnames: ['mainnet'], clientVersion: 'bench', config: c, stateSource: source });
  const server = await buildServer({ networks: [network.handle], keys: new KeyRegistry(openKey()), config: c });
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (server.app.server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}/v3/${API_KEY}`;
  try {
    const half = Math.floor(o.untouched.length / 2);
    const ours: number[] = [];
    const theirs: number[] = [];
    for (const [i, account] of o.untouched.entries()) {
      const t0 = performance.now();
      if (i < half) {
        const answer = parseJson((await httpPost(url, requestBody('eth_getBalance', [account, 'latest']))).text) as { result?: string };
        ours.push(performance.now() - t0);
        if (answer.result !== (await rpcResult(o.anvilUrl, 'eth_getBalance', [account, 'latest'])))
          throw new Error(`followFrom: eth_getBalance of ${account} is not anvil's`);
      } else {
        await httpPost(o.anvilUrl, requestBody('eth_getProof', [account, [], 'latest']));
        theirs.push(performance.now() - t0);
      }
    }
    const fetched = source.stats().proof.fetches;
    const a = percentiles(ours).p50;
    const b = percentiles(theirs).p50;
    return { p50Ms: round(a, 2), upstreamProofP50Ms: round(b, 2), overMs: round(a - b, 2), reads: ours.length, fetched };
  } finally {
    await server.shutdown();
    await network.close();
    await chain.close();
  }
}

/** The bench's one API key, as the server's key policies. */
function openKey() {
  return openKeys([API_KEY]);
}

/**
 * The section of `npm run bench`: builds a bench chain of `total` blocks on an anvil of its own
 * (anvil keeps the state of its last 64 blocks, so at most 60 are followed from a checkpoint),
 * measures, and stops it. `benchChain`: the run's own anvil, whose head the start is timed at too.
 */
export async function benchFollowFrom(o: {
  total: number;
  blocks: number;
  benchChain?: { anvilUrl: string; holder: string };
  log: (line: string) => void;
}): Promise<FollowFromReport> {
  const { buildAnvilChain, accountFor } = await import('../scripts/anvilChain.js');
  const dir = mkdtempSync(join(tmpdir(), 'tracenode-bench-chain-'));
  const built = await buildAnvilChain({ outDir: dir, scenario: 'bench', blocks: o.total, keepRunning: true });
  try {
    const users = Array.from({ length: 100 }, (_, i) => accountFor(`user${i}`).address);
    // Users the followed blocks never touched: their balances are read at the head.
    const touched = new Set<string>();
    for (let n = o.total - o.blocks + 1; n <= o.total; n++) {
      const block = (await rpcResult(built.anvil!.url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true])) as {
        transactions: Array<{ from: string; to: string | null }>;
      };
      for (const tx of block.transactions) for (const a of [tx.from, tx.to]) if (a) touched.add(a.toLowerCase());
    }
    const untouched = users.filter((u) => !touched.has(u.toLowerCase()));
    const report = await measureFollowFrom({
      chainDir: dir,
      anvilUrl: built.anvil!.url,
      head: o.total,
      blocks: o.blocks,
      holder: built.info.bench!.holder,
      untouched: untouched.length >= 4 ? untouched : users,
      anvilCpu: built.anvil!.cpuSeconds,
      log: o.log,
    });
    if (o.benchChain) {
      const work = mkdtempSync(join(tmpdir(), 'tracenode-bench-from-'));
      try {
        report.startOnBenchChain = await timeToFirstAnswer({ ...o.benchChain, chainDir: dir, head: 0, blocks: 0, untouched: [], log: o.log }, work);
        o.log(
          `followFrom: on the run's bench chain (block ${report.startOnBenchChain.head}), the first correct answer after ${report.startOnBenchChain.seconds} s`,
        );
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    }
    return report;
  } finally {
    await built.anvil?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Standalone: `npx tsx bench/followFrom.ts [total] [followed]`. */
async function main(): Promise<void> {
  const report = await benchFollowFrom({ total: Number(process.argv[2] ?? 400), blocks: Number(process.argv[3] ?? 60), log: (line) => console.log(line) });
  writeFileSync(join(tmpdir(), 'tracenode-follow-from.json'), JSON.stringify(report, null, 1));
  console.log(JSON.stringify(report));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
