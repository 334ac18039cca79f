import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex } from '@ethereumjs/util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type BuiltChain, buildAnvilChain } from '../../scripts/anvil/buildAnvilChain.js';
import { openChain } from '../../src/chain/open.js';
import { initDatadir } from '../../src/import/init.js';
import { rawResult } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { runCli, type ServeCli, startServeCli } from '../helpers/cli.js';
import { ANVIL_BIN, describeWithFoundry } from '../helpers/foundry.js';
import { rawHttp } from '../helpers/rpcClient.js';
import { testConfig } from '../helpers/testConfig.js';
import { until } from '../helpers/until.js';

/**
 * `tracenode serve --follow` as an operator runs it beside anvil (as users run anvil: no timestamp
 * interval, so blocks mined in one second share a timestamp): /health reports the upstream, its
 * head, the lag and the time since the last block, and is 200 once caught up; latest moves when
 * anvil mines; the metrics count the header rules anvil's blocks broke. Pointed at a node of
 * another chain (another genesis) it refuses to follow: /health is 503 and says why.
 */

const describe = describeWithFoundry(['anvil'], 'serve --follow');
const tmp = tempDir('tracenode-serve-follow-');
let built: BuiltChain;
const children: ChildProcess[] = [];

beforeAll(async () => {
  built = await buildAnvilChain({ outDir: join(tmp.dir, 'anvil'), scenario: 'state', keepRunning: true });
}, 180_000);

afterAll(async () => {
  for (const c of children) {
    c.kill('SIGTERM');
    await new Promise((r) => (c.exitCode !== null ? r(undefined) : c.once('close', r)));
  }
  await built?.anvil?.stop();
  tmp.cleanup();
});

/** Starts serve on a fresh genesis-only datadir following `url`. */
async function serveFollowing(name: string, url: string, extra: string[] = []): Promise<ServeCli> {
  const datadir = join(tmp.dir, name);
  await initDatadir(datadir, readFileSync(built.genesisPath, 'utf8'), testConfig());
  const serve = await startServeCli([
    '--datadir',
    datadir,
    '--port',
    '0',
    '--api-keys',
    'follow-key',
    '--log-level',
    'warn',
    '--follow',
    url,
    '--follow.poll-interval-ms',
    '50',
    '--follow.health-max-lag-blocks',
    '0',
    ...extra,
  ]);
  children.push(serve.child);
  return serve;
}

async function health(base: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await rawHttp(`${base}/health`, { method: 'GET' });
  return { status: r.status, body: JSON.parse(r.text) };
}

describe('serve --follow', () => {
  it('beside anvil: /health is 200 with the upstream’s head once caught up; latest moves when anvil mines', async () => {
    const { base } = await serveFollowing('data', built.anvil!.url);
    const anvilHead = async () => Number(BigInt((await rawResult(built.anvil!.url, 'eth_blockNumber', [])) as string));
    const target = await anvilHead();
    const h = await until(
      'caught up',
      () => health(base),
      // 200 can come a moment before the first round ends and the state turns from 'starting'.
      (r) => r.status === 200 && r.body.following === 'following',
    );
    expect(h.body).toMatchObject({ ok: true, head: { number: target }, upstreamHead: target, lagBlocks: 0, following: 'following' });
    expect(h.body.upstream).toBe(new URL(built.anvil!.url).origin);
    expect(typeof h.body.secondsSinceLastBlock).toBe('number');
    await rawResult(built.anvil!.url, 'evm_mine', []);
    const rpc = async () =>
      JSON.parse(
        (
          await rawHttp(`${base}/v3/follow-key`, {
            headers: { 'content-type': 'application/json' },
            body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}',
          })
        ).text,
      ).result as string;
    await until('latest moved', rpc, (n) => Number(n) === target + 1);
    const anvilLatest = (await rawResult(built.anvil!.url, 'eth_getBlockByNumber', ['latest', false])) as { hash: string };
    expect((await health(base)).body).toMatchObject({ ok: true, head: { number: target + 1, hash: anvilLatest.hash } });
  });

  it('a ws:// upstream pushes new heads: a mined block is followed with the hourly poll far off', async () => {
    // Polled once an hour: a block followed within the test can only have come by the subscription.
    const { base } = await serveFollowing('ws', built.anvil!.url.replace('http://', 'ws://'), ['--follow.poll-interval-ms', '3600000']);
    await until(
      'caught up',
      () => health(base),
      (r) => r.status === 200,
      30_000,
    );
    const before = (await health(base)).body.head as { number: number };
    await rawResult(built.anvil!.url, 'evm_mine', []);
    const h = await until(
      'new head',
      () => health(base),
      (r) => (r.body.head as { number: number }).number === before.number + 1,
    );
    expect(h.body).toMatchObject({ ok: true, upstream: new URL(built.anvil!.url.replace('http://', 'ws://')).origin, lagBlocks: 0 });
    // A burst: blocks mined in one second share its timestamp; each is followed and counted.
    for (let i = 0; i < 3; i++) await rawResult(built.anvil!.url, 'evm_mine', []);
    const head = Number(BigInt((await rawResult(built.anvil!.url, 'eth_blockNumber', [])) as string));
    await until(
      'burst followed',
      () => health(base),
      (r) => (r.body.head as { number: number }).number === head,
    );
    let repeated = 0;
    let parent = -1n;
    for (let n = 0; n <= head; n++) {
      const ts = BigInt(((await rawResult(built.anvil!.url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])) as { timestamp: string }).timestamp);
      if (n > 0 && ts <= parent) repeated++;
      parent = ts;
    }
    expect(repeated).toBeGreaterThan(0);
    const metrics = (await rawHttp(`${base}/metrics`, { method: 'GET' })).text;
    expect(metrics).toContain(`tracenode_follow_header_deviations_total{network="mainnet",rule="timestamp"} ${repeated}\n`);
  });

  it('tracenode follow: a genesis-only datadir catches up with anvil and exits; run again, nothing to do', async () => {
    const datadir = join(tmp.dir, 'bulk');
    await initDatadir(datadir, readFileSync(built.genesisPath, 'utf8'), testConfig());
    const head = (await rawResult(built.anvil!.url, 'eth_getBlockByNumber', ['latest', false])) as { number: string; hash: string };
    const first = await runCli(['follow', '--datadir', datadir, '--follow', built.anvil!.url]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(`follow: head is block ${Number(head.number)} (upstream head ${Number(head.number)})\n`);
    const again = await runCli(['follow', '--datadir', datadir, '--follow', built.anvil!.url]);
    expect([again.code, again.stdout]).toEqual([0, first.stdout]);
    const chain = await openChain(datadir, testConfig().caches);
    try {
      expect(bytesToHex((await chain.store.canonicalHash(BigInt(head.number)))!)).toBe(head.hash);
    } finally {
      await chain.close();
    }
    const missing = await runCli(['follow', '--datadir', datadir]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing --follow URL');
  });

  it('SIGTERM while the follower retries an upstream that refuses: serve exits 0, and the stop it asked for is no error', async () => {
    // Port 1 on 127.0.0.1: nothing listens, every attempt is refused and retried with backoff.
    const serve = await serveFollowing('refused', 'http://127.0.0.1:1');
    await until(
      'retrying',
      () => health(serve.base),
      (r) => r.status === 503,
    );
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    const errors = serve
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{') && (JSON.parse(line) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
  });

  it('an upstream of another chain: following stops, /health is 503 and says why', async () => {
    // A plain anvil: chain id 31337 and its own genesis.
    const other = spawn(ANVIL_BIN, ['--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(other);
    let text = '';
    other.stdout!.on('data', (d) => {
      text += d;
    });
    const port = await until(
      'anvil listening',
      async () => /Listening on [\d.]+:(\d+)/.exec(text)?.[1],
      (p) => p !== undefined,
    );
    const { base } = await serveFollowing('other', `http://127.0.0.1:${port}`);
    const h = await until(
      'stopped',
      () => health(base),
      (r) => r.body.following === 'stopped',
    );
    expect(h.status).toBe(503);
    expect(h.body.ok).toBe(false);
    // Same chain id as the scenario's chain (31337), another genesis block.
    const theirs = ((await rawResult(`http://127.0.0.1:${port}`, 'eth_getBlockByNumber', ['0x0', false])) as { hash: string }).hash;
    expect(h.body.error).toBe(`the upstream's genesis is ${theirs}, this datadir's is ${built.blocks[0].hash}`);
  });
});
