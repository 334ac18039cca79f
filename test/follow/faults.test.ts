import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { bytesToHex } from '@ethereumjs/util';
import { parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { type BuiltChain, buildAnvilChain } from '../../scripts/anvil/buildAnvilChain.js';
import { accountFor } from '../../scripts/anvil/chainParams.js';
import { type EthereumChain, openChain } from '../../src/chain/open.js';
import { Follower } from '../../src/follow/follower.js';
import { Upstream } from '../../src/follow/upstream.js';
import { initDatadir } from '../../src/import/init.js';
import { rawResult } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { testConfig } from '../helpers/testConfig.js';
import { quiet, until } from '../helpers/until.js';

/**
 * A bad upstream (issue 16): a proxy between the follower and anvil that goes down, stalls past the
 * request deadline, rate-limits, answers garbage, cuts its answers, or tampers with a block (a
 * transaction's value changed, so the rebuilt block is not the one whose hash the upstream gives).
 * Each time: nothing is written (the head stays the last good block), the follower says what is
 * wrong once, and when the fault clears it catches up to anvil's head with anvil's hashes. And a
 * WebSocket proxy that closes the follower's sockets: it reconnects and subscribes again at once.
 */

type Mode = 'pass' | 'down' | 'stall' | 'ratelimit' | 'garbage' | 'truncate' | 'tamper';

const describe = describeWithFoundry(['anvil'], 'a faulty upstream');
const tmp = tempDir('tracenode-faults-');
let built: BuiltChain;
let chain: EthereumChain;
let follower: Follower;
let proxy: Server;
let mode: Mode = 'pass';
const warnings: string[] = [];

beforeAll(async () => {
  built = await buildAnvilChain({ outDir: join(tmp.dir, 'anvil'), scenario: 'state', keepRunning: true });
  await rawResult(built.anvil!.url, 'anvil_setBlockTimestampInterval', [12]);
  proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString();
    const current = mode;
    if (current === 'down') {
      req.socket.destroy();
      return;
    }
    if (current === 'stall') return; // never answers
    if (current === 'ratelimit') {
      res.writeHead(429).end('{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"rate"}}');
      return;
    }
    if (current === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('<html>bad gateway</html>');
      return;
    }
    const upstream = await fetch(built.anvil!.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    let text = await upstream.text();
    if (current === 'truncate') text = text.slice(0, Math.floor(text.length / 2));
    if (current === 'tamper' && body.includes('"eth_getBlockByNumber"') && body.includes('true]')) {
      // A transaction's value in each full block with transactions: the block no longer hashes right.
      text = text.replace(/"value":"0x([0-9a-f]+)"/, (_m, v: string) => `"value":"0x${(BigInt(`0x${v}`) + 1n).toString(16)}"`);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(text);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const config = testConfig({ follow: { pollIntervalMs: 50, requestTimeoutMs: 500, retryMaxMs: 400 } });
  const datadir = join(tmp.dir, 'data');
  await initDatadir(datadir, readFileSync(built.genesisPath, 'utf8'), config);
  chain = await openChain(datadir, config.caches);
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  follower = new Follower(chain, new Upstream(url, { requestTimeoutMs: config.follow.requestTimeoutMs }), {
    settings: config.follow,
    importSettings: config.import,
    log: { info() {}, debug() {}, error: (o, m) => warnings.push(`${m} ${JSON.stringify(o)}`), warn: (o, m) => warnings.push(`${m} ${JSON.stringify(o)}`) },
  });
  follower.start();
}, 180_000);

afterAll(async () => {
  await follower?.stop();
  await chain?.close();
  proxy?.closeAllConnections();
  proxy?.close();
  await built?.anvil?.stop();
  tmp.cleanup();
});

const anvil = (method: string, params: unknown[] = []) => rawResult(built.anvil!.url, method, params);

async function caughtUp(): Promise<void> {
  const read = async () => ({
    latest: (await anvil('eth_getBlockByNumber', ['latest', false])) as { number: string; hash: string },
    head: await chain.store.head(),
  });
  await until(
    'caught up with anvil',
    read,
    ({ latest, head }) => head !== undefined && head.number === BigInt(latest.number) && bytesToHex(head.hash) === latest.hash,
    30_000,
    () => warnings.slice(-2).join(' | '),
  );
}

const alice = accountFor('alice');
const signer = privateKeyToAccount(alice.privateKey);

/** Mines a block with a transfer from alice (a funded account of the scenario). */
async function mineBlockWithTransfer(): Promise<void> {
  const nonce = Number(BigInt((await anvil('eth_getTransactionCount', [alice.address, 'pending'])) as string));
  const raw = await signer.signTransaction({
    chainId: built.chainId,
    type: 'eip1559',
    nonce,
    to: accountFor('bob').address,
    value: 12345n,
    gas: 21_000n,
    maxFeePerGas: parseGwei('100'),
    maxPriorityFeePerGas: parseGwei('1'),
  });
  await anvil('eth_sendRawTransaction', [raw]);
  await anvil('evm_mine');
}

describe('a faulty upstream', () => {
  it('catches up through the proxy', async () => {
    await caughtUp();
  });

  const faults: Array<[Mode, RegExp]> = [
    ['down', /upstream unreachable/],
    ['stall', /upstream unreachable: timed out/],
    ['ratelimit', /rate-limiting \(HTTP 429\)/],
    ['garbage', /not JSON/],
    ['truncate', /not JSON/],
    ['tamper', /upstream block 0x[0-9a-f]+: /],
  ];
  for (const [fault, reason] of faults) {
    it(`${fault}: nothing is written, one line says why, following resumes when it clears`, async () => {
      await caughtUp();
      const head = (await chain.store.head())!;
      warnings.length = 0;
      mode = fault;
      try {
        await mineBlockWithTransfer();
        await until(
          'retrying',
          () => follower.status().state,
          (state) => state === 'retrying',
        );
        await quiet(1000); // more retries, and no block written, no second line
        expect((await chain.store.head())!.hash).toEqual(head.hash);
        expect(follower.status()).toMatchObject({ state: 'retrying' });
        const retries = warnings.filter((w) => w.startsWith('upstream: retrying'));
        expect(retries.length).toBe(1);
        expect(retries[0]).toMatch(reason);
      } finally {
        mode = 'pass';
      }
      await caughtUp();
      expect(follower.status().state).toBe('following');
    });
  }

  it('a ws:// upstream that closes the socket: the follower reconnects, subscribes again and gets the next block pushed', async () => {
    await caughtUp();
    // A WebSocket proxy to anvil whose client sockets the test closes.
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((r) => wss.once('listening', r));
    const subscribes: string[] = [];
    wss.on('connection', (client) => {
      const target = new WebSocket(built.anvil!.url.replace('http://', 'ws://'));
      const queued: string[] = [];
      target.on('open', () => {
        for (const m of queued.splice(0)) target.send(m);
      });
      target.on('message', (m) => client.readyState === WebSocket.OPEN && client.send(String(m)));
      client.on('message', (m) => {
        if (String(m).includes('eth_subscribe')) subscribes.push(String(m));
        if (target.readyState === WebSocket.OPEN) target.send(String(m));
        else queued.push(String(m));
      });
      client.on('close', () => target.close());
      target.on('close', () => client.close());
    });
    // Polled once an hour: a head that arrives within the test came by the subscription.
    const config = testConfig({ follow: { pollIntervalMs: 3_600_000, requestTimeoutMs: 2000, retryMaxMs: 400 } });
    const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
    // A second datadir on the same chain, so the first follower is not disturbed.
    const datadir = join(tmp.dir, 'ws');
    await initDatadir(datadir, readFileSync(built.genesisPath, 'utf8'), config);
    const wsChain = await openChain(datadir, config.caches);
    const wsFollower = new Follower(wsChain, new Upstream(url, { requestTimeoutMs: 2000 }), {
      settings: config.follow,
      importSettings: config.import,
      log: { info() {}, debug() {}, warn() {}, error() {} },
    });
    const headOf = async () => (await wsChain.store.head())!.number;
    const reach = async (n: bigint) => until(`head ${n}`, headOf, (head) => head >= n);
    try {
      wsFollower.start();
      const latest = () => anvil('eth_blockNumber').then((n) => BigInt(n as string));
      await reach(await latest());
      expect(subscribes).toHaveLength(1);
      // The proxy drops every socket (as a restarting load balancer does), then anvil mines.
      for (const c of wss.clients) c.close(1012, 'service restart');
      await until(
        'subscribed again on a new socket',
        () => subscribes.length,
        (n) => n === 2,
      );
      await anvil('evm_mine');
      // Pushed on the new socket (the next poll is an hour off).
      await reach(await latest());
      expect(subscribes).toHaveLength(2);
      expect(wsFollower.status().state).toBe('following');
    } finally {
      await wsFollower.stop();
      await wsChain.close();
      for (const c of wss.clients) c.terminate();
      wss.close();
    }
  });
});
