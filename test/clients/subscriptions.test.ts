import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Contract, type Log as EthersLog, JsonRpcProvider, WebSocketProvider } from 'ethers';
import { type Address, createPublicClient, encodeAbiParameters, type Hex, http, type Log as ViemLog, webSocket } from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type BareAnvil, startBareAnvil } from '../../scripts/anvil/bareAnvil.js';
import { TICK_ABI, TICK_INITCODE, TICK_TOPIC } from '../../scripts/anvil/tickContract.js';
import { initDatadir } from '../../src/import/init.js';
import { rawCall, untilCaughtUp } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { type ServeCli, startServeCli } from '../helpers/cli.js';
import { CAST_BIN, describeWithFoundry } from '../helpers/foundry.js';
import { liveCounts, untilNoSubscriptions, untilSubscribed } from '../helpers/liveCounts.js';
import { rawHttp } from '../helpers/rpcClient.js';
import { testConfig } from '../helpers/testConfig.js';
import { quiet, until } from '../helpers/until.js';

/**
 * Subscriptions and filters with real clients, on a chain that moves: `tracenode serve --follow`
 * beside an anvil on which the test mines blocks holding `Tick` events, then a reorganisation
 * (evm_snapshot, branch A, evm_revert, a longer branch B). Every client must receive exactly
 * anvil's blocks and logs, in order, and after the switch A's logs again with `removed: true`
 * (newest first) before B's. Expected values are anvil's own answers (block hashes, receipts).
 */

const describe = describeWithFoundry(['anvil', 'cast'], 'subscriptions and filters');
const tmp = tempDir('tracenode-subs-');
const KEY_A = 'subs-key-a';
const KEY_B = 'subs-key-b';
const FILTERS_PER_KEY = 20;
let anvil: BareAnvil;
let serve: ServeCli;
let ticker: Address;

const http_ = () => `${serve.base}/v3/${KEY_A}`;
const ws_ = () => `${serve.base.replace('http://', 'ws://')}/ws/v3/${KEY_A}`;
const ours = (method: string, params: unknown[] = [], key = KEY_A) => rawCall(`${serve.base}/v3/${key}`, method, params);

/** Waits until tracenode's latest block is anvil's. */
const caughtUp = () => untilCaughtUp(anvil.url, http_(), () => `serve said: ${serve.output().slice(-1500)}`);

/** Sends `Tick(id, value)` from alice (mined with the next block); resolves its hash. */
async function tick(id: bigint, value: bigint): Promise<Hex> {
  const data = encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [id, value]);
  return anvil.send({ to: ticker, data, gas: 0x30000n });
}

interface Expected {
  blockHash: string;
  transactionHash: string;
  logIndex: number;
  data: string;
  topics: string[];
  removed: boolean;
}

/** anvil's log of transaction `hash` (its only one), as a client should see it. */
async function anvilLog(hash: Hex): Promise<Expected> {
  const receipt = (await anvil.call('eth_getTransactionReceipt', [hash])) as { logs: Array<Record<string, unknown>> };
  expect(receipt.logs).toHaveLength(1);
  const log = receipt.logs[0] as { blockHash: string; transactionHash: string; logIndex: string; data: string; topics: string[] };
  return { blockHash: log.blockHash, transactionHash: log.transactionHash, logIndex: Number(log.logIndex), data: log.data, topics: log.topics, removed: false };
}

/** A raw WebSocket client of tracenode: single calls and batches, answers matched by id. */
async function openWs(key: string): Promise<{
  socket: WebSocket;
  call(method: string, params?: unknown[]): Promise<{ result?: unknown; error?: unknown }>;
  batch(calls: ReadonlyArray<readonly [string, unknown[]]>): Promise<Array<{ result?: unknown; error?: unknown }>>;
  /** The notifications received, in order. */
  notes: Array<{ subscription: string; result: Record<string, unknown> }>;
  close(): void;
}> {
  const socket = new WebSocket(`${serve.base.replace('http://', 'ws://')}/ws/v3/${key}`);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let next = 1;
  const waiting = new Map<number, (a: { result?: unknown; error?: unknown }) => void>();
  const notes: Array<{ subscription: string; result: Record<string, unknown> }> = [];
  socket.on('message', (data) => {
    const msg = JSON.parse(data.toString());
    for (const m of Array.isArray(msg) ? msg : [msg]) {
      if (m.id === undefined) {
        expect(Object.keys(m)).toEqual(['jsonrpc', 'method', 'params']);
        expect([m.jsonrpc, m.method, Object.keys(m.params)]).toEqual(['2.0', 'eth_subscription', ['subscription', 'result']]);
        notes.push(m.params);
        continue;
      }
      waiting.get(m.id)?.('error' in m ? { error: m.error } : { result: m.result });
      waiting.delete(m.id);
    }
  });
  const ask = (method: string, params: unknown[]) => {
    const id = next++;
    return { body: { jsonrpc: '2.0', id, method, params }, answer: new Promise<{ result?: unknown; error?: unknown }>((r) => waiting.set(id, r)) };
  };
  return {
    socket,
    call(method, params = []) {
      const { body, answer } = ask(method, params);
      socket.send(JSON.stringify(body));
      return answer;
    },
    batch(calls) {
      const asked = calls.map(([m, p]) => ask(m, p));
      socket.send(JSON.stringify(asked.map((a) => a.body)));
      return Promise.all(asked.map((a) => a.answer));
    },
    notes,
    close: () => socket.close(),
  };
}

/** One sample of tracenode's /metrics, by its name and labels as written there. */
async function metric(series: string): Promise<number | undefined> {
  const text = (await rawHttp(`${serve.base}/metrics`, { method: 'GET' })).text;
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Closes a viem client's WebSocket (else it reconnects to a server the test stopped). */
async function closeViem(client: { transport: { getRpcClient?: () => Promise<{ close(): void }> } }): Promise<void> {
  (await client.transport.getRpcClient?.())?.close();
}

/**
 * The logs `cast logs` prints (one `- address: …` entry per log, a `key: value` a line, topics
 * as a bracketed list), in the shape of {@link Expected}.
 */
function parseCastLogs(text: string): Expected[] {
  return text
    .split(/^- /m)
    .filter((entry) => entry.startsWith('address:'))
    .map((entry) => {
      const field = (name: string) => new RegExp(`^\\s*${name}: (\\S+)$`, 'm').exec(entry)?.[1] ?? '';
      const topics = /topics: \[([^\]]*)\]/.exec(entry)?.[1].trim().split(/\s+/) ?? [];
      return {
        blockHash: field('blockHash'),
        transactionHash: field('transactionHash'),
        logIndex: Number(field('logIndex')),
        data: field('data'),
        topics,
        removed: field('removed') === 'true',
      };
    });
}

const fromEthers = (l: EthersLog): Expected => ({
  blockHash: l.blockHash,
  transactionHash: l.transactionHash,
  logIndex: l.index,
  data: l.data,
  topics: [...l.topics],
  removed: l.removed,
});
const fromViem = (l: ViemLog): Expected => ({
  blockHash: l.blockHash!,
  transactionHash: l.transactionHash!,
  logIndex: l.logIndex!,
  data: l.data,
  topics: [...l.topics] as string[],
  removed: l.removed,
});

beforeAll(async () => {
  anvil = await startBareAnvil(join(tmp.dir, 'anvil'));
  const datadir = join(tmp.dir, 'data');
  await initDatadir(datadir, readFileSync(anvil.genesisPath, 'utf8'), testConfig());
  // The contract, deployed before tracenode starts following.
  const deploy = await anvil.send({ data: TICK_INITCODE, gas: 0x100000n });
  await anvil.mine();
  ticker = ((await anvil.call('eth_getTransactionReceipt', [deploy])) as { contractAddress: Address }).contractAddress;
  serve = await startServeCli([
    ...['--datadir', datadir, '--port', '0', '--api-keys', `${KEY_A},${KEY_B}`, '--log-level', 'warn'],
    ...['--follow', anvil.url, '--follow.poll-interval-ms', '50'],
    ...['--subscriptions.filters-per-key', String(FILTERS_PER_KEY), '--subscriptions.max-backlog-bytes', '65536'],
    // The backlog test's subscriber reads again only once 120 blocks are mined: as long as a loaded machine takes.
    ...['--transport.ws-slow-consumer-grace-ms', '600000'],
  ]);
  await caughtUp();
}, 120_000);

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  await anvil?.stop();
  tmp.cleanup();
});

describe('subscriptions and filters', () => {
  it('ethers and viem, over WebSocket and HTTP: exactly anvil’s blocks and logs, in order, and the removed logs after a reorganisation', async () => {
    const before = await liveCounts(serve.base);
    // ethers v6: WebSocketProvider (eth_subscribe) and JsonRpcProvider (eth_newFilter + eth_getFilterChanges).
    const ethersWs = new WebSocketProvider(ws_());
    const ethersHttp = new JsonRpcProvider(http_(), undefined, { staticNetwork: true, pollingInterval: 100 });
    const ethersBlocks: number[] = [];
    const ethersWsLogs: Expected[] = [];
    const ethersHttpLogs: Expected[] = [];
    await ethersWs.on('block', (n: number) => ethersBlocks.push(n));
    const tickerAbi = ['event Tick(uint256 indexed id, uint256 value)'];
    await new Contract(ticker, tickerAbi, ethersWs).on('Tick', (_id, _value, ev: { log: EthersLog }) => ethersWsLogs.push(fromEthers(ev.log)));
    await new Contract(ticker, tickerAbi, ethersHttp).on('Tick', (_id, _value, ev: { log: EthersLog }) => ethersHttpLogs.push(fromEthers(ev.log)));

    // viem: over WebSocket (eth_subscribe) and over HTTP (filters).
    const viemWs = createPublicClient({ transport: webSocket(ws_()) });
    const viemHttp = createPublicClient({ transport: http(http_()), pollingInterval: 100 });
    const viemBlocks: string[] = [];
    const viemNumbers: bigint[] = [];
    const viemWsLogs: Expected[] = [];
    const viemHttpLogs: Expected[] = [];
    const errors: unknown[] = [];
    const onError = (e: unknown) => errors.push(e);
    const unwatch = [
      viemWs.watchBlocks({ onBlock: (b) => viemBlocks.push(b.hash!), onError }),
      viemWs.watchBlockNumber({ onBlockNumber: (n) => viemNumbers.push(n), onError }),
      viemWs.watchContractEvent({ address: ticker, abi: TICK_ABI, onLogs: (logs) => viemWsLogs.push(...logs.map(fromViem)), onError }),
      viemHttp.watchContractEvent({ address: ticker, abi: TICK_ABI, poll: true, onLogs: (logs) => viemHttpLogs.push(...logs.map(fromViem)), onError }),
    ];
    // A raw subscriber: the exact notifications.
    const raw = await openWs(KEY_A);
    const headsId = (await raw.call('eth_subscribe', ['newHeads'])).result;
    const logsId = (await raw.call('eth_subscribe', ['logs', { address: ticker, topics: [TICK_TOPIC] }])).result;
    // A raw block filter, polled at the end.
    const blockFilter = (await ours('eth_newBlockFilter')).result as string;
    expect(blockFilter).toMatch(/^0x[1-9a-f][0-9a-f]{0,31}$/);
    // Every client has subscribed (ethers: newHeads, logs; viem: newHeads twice, logs; the raw
    // socket: both) or made its filter (ethers and viem over HTTP, the raw block filter).
    await untilSubscribed(serve.base, before, { subscriptions: 7, filters: 3 });

    // Branch A: Tick 1 in one block, Ticks 2 and 3 in the next.
    const snapshot = await anvil.call('evm_snapshot');
    const a1 = await tick(1n, 101n);
    await anvil.mine();
    const a2 = await tick(2n, 102n);
    const a3 = await tick(3n, 103n);
    await anvil.mine();
    const branchA = [await anvilLog(a1), await anvilLog(a2), await anvilLog(a3)];
    const blocksA = await Promise.all(
      [1, 0].map(
        async (back) =>
          (await anvil.call('eth_getBlockByNumber', [`0x${(Number(await anvil.call('eth_blockNumber')) - back).toString(16)}`, false])) as {
            hash: string;
            number: string;
          },
      ),
    );
    await caughtUp();
    await until(
      'branch A seen',
      () => viemWsLogs.length + ethersWsLogs.length,
      (n) => n === 6,
    );

    // Branch B, one block longer: Tick 4, Tick 5, an empty block.
    expect(await anvil.call('evm_revert', [snapshot])).toBe(true);
    const b4 = await tick(4n, 104n);
    await anvil.mine();
    const b5 = await tick(5n, 105n);
    await anvil.mine();
    await anvil.mine();
    const branchB = [await anvilLog(b4), await anvilLog(b5)];
    const head = Number(await anvil.call('eth_blockNumber'));
    const blocksB = await Promise.all(
      [2, 1, 0].map(async (back) => (await anvil.call('eth_getBlockByNumber', [`0x${(head - back).toString(16)}`, false])) as { hash: string; number: string }),
    );
    await caughtUp();

    const expectedLogs = [...branchA, ...[...branchA].reverse().map((l) => ({ ...l, removed: true })), ...branchB];
    const expectedHashes = [...blocksA, ...blocksB].map((b) => b.hash);
    const expectedNumbers = [...blocksA, ...blocksB].map((b) => Number(b.number));
    // Wait for the last of each stream (B's logs, the third block of B), then a little more.
    await until(
      'every stream complete',
      () => [viemWsLogs, viemHttpLogs, ethersWsLogs, ethersHttpLogs].map((l) => l.at(-1)?.transactionHash === branchB[1].transactionHash),
      (done) => done.every(Boolean),
      10_000,
    );
    await until(
      'heads complete',
      () => Math.min(viemBlocks.length, viemNumbers.length, ethersBlocks.length),
      (n) => n >= 5,
      10_000,
    );
    await quiet(500); // nothing more may arrive
    expect(viemWsLogs).toEqual(expectedLogs);
    expect(viemHttpLogs).toEqual(expectedLogs);
    // ethers hands a log with removed: true to its "orphan" event, never to the contract's listener:
    // those see the live logs of both branches.
    const live = [...branchA, ...branchB];
    expect(ethersWsLogs).toEqual(live);
    expect(ethersHttpLogs).toEqual(live);
    // The raw subscriber: each header as eth_getBlockByNumber gives its header fields, in order; the logs as viem's.
    const headers = raw.notes.filter((n) => n.subscription === headsId).map((n) => n.result);
    expect(headers.map((h) => h.hash)).toEqual(expectedHashes);
    for (const h of headers) {
      const { transactions, uncles, size, withdrawals, ...fields } = (await ours('eth_getBlockByHash', [h.hash, false])).result as Record<string, unknown>;
      expect(h).toEqual(fields);
    }
    expect(raw.notes.filter((n) => n.subscription === logsId).map((n) => fromViem(n.result as unknown as ViemLog))).toEqual(
      expectedLogs.map((l) => ({ ...l, logIndex: `0x${l.logIndex.toString(16)}` })),
    );
    raw.close();
    // viem's watchBlocks fetches each announced block by number, concurrently: it gets every
    // block, but two that arrive together may come back in either order.
    expect([...viemBlocks].sort()).toEqual([...expectedHashes].sort());
    expect(viemNumbers).toEqual(expectedNumbers.map(BigInt));
    expect(ethersBlocks).toEqual(expectedNumbers);
    expect((await ours('eth_getFilterChanges', [blockFilter])).result).toEqual(expectedHashes);
    expect((await ours('eth_getFilterChanges', [blockFilter])).result).toEqual([]);
    expect(errors).toEqual([]);

    for (const u of unwatch) u();
    await ethersWs.destroy();
    ethersHttp.destroy();
    await closeViem(viemWs);
    await untilNoSubscriptions(serve.base);
  }, 60_000);

  it("pending transactions relayed from anvil’s pool: ethers on('pending'), viem over WebSocket and HTTP (filter), a raw subscriber", async () => {
    const before = await liveCounts(serve.base);
    const ethersWs = new WebSocketProvider(ws_());
    const viemWs = createPublicClient({ transport: webSocket(ws_()) });
    const viemHttp = createPublicClient({ transport: http(http_()), pollingInterval: 100 });
    const seen = { ethers: [] as string[], viemWs: [] as string[], viemHttp: [] as string[], raw: [] as string[] };
    const errors: unknown[] = [];
    await ethersWs.on('pending', (h: string) => seen.ethers.push(h));
    const unwatch = [
      viemWs.watchPendingTransactions({ onTransactions: (hs) => seen.viemWs.push(...hs), onError: (e) => errors.push(e) }),
      viemHttp.watchPendingTransactions({ onTransactions: (hs) => seen.viemHttp.push(...hs), onError: (e) => errors.push(e) }),
    ];
    const raw = await openWs(KEY_A);
    const id = (await raw.call('eth_subscribe', ['newPendingTransactions'])).result as string;
    expect(await raw.call('eth_subscribe', ['newPendingTransactions', true])).toEqual({
      error: { code: -32602, message: 'invalid argument 1: only transaction hashes are relayed (fullTx must be false or absent)' },
    });
    // ethers, viem over WebSocket and the raw socket subscribed; viem over HTTP made its filter.
    await untilSubscribed(serve.base, before, { subscriptions: 3, filters: 1 });
    const hash = await tick(9n, 109n); // in anvil's pool until the next block
    expect(((await anvil.call('eth_getTransactionByHash', [hash])) as { blockHash: string | null }).blockHash).toBeNull();
    await until(
      'every client saw it',
      () => [seen.ethers, seen.viemWs, seen.viemHttp, raw.notes.filter((n) => n.subscription === id)].map((l) => l.length),
      (n) => n.every((c) => c >= 1),
      10_000,
    );
    seen.raw = raw.notes.filter((n) => n.subscription === id).map((n) => n.result as unknown as string);
    expect(seen).toEqual({ ethers: [hash], viemWs: [hash], viemHttp: [hash], raw: [hash] });
    expect(errors).toEqual([]);
    for (const u of unwatch) u();
    raw.close();
    await ethersWs.destroy();
    await closeViem(viemWs);
    await anvil.mine();
    await caughtUp();
    await untilNoSubscriptions(serve.base);
  });

  it('cast logs --subscribe streams the Tick logs anvil mines, exactly as anvil reports them', async () => {
    const before = await liveCounts(serve.base);
    const child = spawn(CAST_BIN, ['logs', '--subscribe', '--rpc-url', ws_(), '--address', ticker, TICK_TOPIC], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    try {
      await untilSubscribed(serve.base, before, { subscriptions: 1, filters: 0 });
      const hashes = [await tick(21n, 121n), await tick(22n, 122n)];
      await anvil.mine();
      const expected = await Promise.all(hashes.map(anvilLog));
      await until(
        'cast printed both logs',
        () => out,
        (o) => hashes.every((h) => o.includes(h)),
        10_000,
      ).catch((e: Error) => {
        throw new Error(`${e.message}; stderr: ${err}`);
      });
      expect(parseCastLogs(out)).toEqual(expected);
      expect(child.exitCode).toBeNull(); // still streaming
    } finally {
      child.kill('SIGTERM');
    }
    await caughtUp();
  });

  it('errors as geth gives them: eth_subscribe over HTTP, an unknown name, an unknown id, a bad filter; a node that follows nothing refuses pending transactions, and viem is told so', async () => {
    expect((await ours('eth_subscribe', ['newHeads'])).error).toEqual({ code: -32601, message: 'notifications not supported' });
    const ws = await openWs(KEY_A);
    try {
      expect(await ws.call('eth_subscribe', ['foo'])).toEqual({ error: { code: -32601, message: 'no "foo" subscription in eth namespace' } });
      expect(await ws.call('eth_subscribe', ['logs', { address: '0x12' }])).toEqual({
        error: { code: -32602, message: 'invalid argument 1: invalid address: hex has invalid length 1 after decoding; expected 20 for address' },
      });
      expect(await ws.call('eth_unsubscribe', ['0x1'])).toEqual({ error: { code: -32000, message: 'subscription not found' } });
      const id = (await ws.call('eth_subscribe', ['logs', { address: [ticker], topics: [[TICK_TOPIC], null] }])).result as string;
      expect(id).toMatch(/^0x[1-9a-f][0-9a-f]{0,31}$/);
      expect(await ws.call('eth_unsubscribe', [id])).toEqual({ result: true });
      expect(await ws.call('eth_unsubscribe', [id])).toEqual({ error: { code: -32000, message: 'subscription not found' } });
    } finally {
      ws.close();
    }
    // A node that follows nothing has no pending transactions to offer.
    const still = join(tmp.dir, 'still');
    await initDatadir(still, readFileSync(anvil.genesisPath, 'utf8'), testConfig());
    const alone = await startServeCli(['--datadir', still, '--port', '0', '--api-keys', KEY_A, '--log-level', 'warn']);
    try {
      const why = 'is not supported: this node has no transaction pool and follows no node that has one';
      const filter = await rawCall(`${alone.base}/v3/${KEY_A}`, 'eth_newPendingTransactionFilter', []);
      expect(filter.error).toEqual({ code: -32004, message: `eth_newPendingTransactionFilter ${why}` });
      const seen: string[] = [];
      const viemWs = createPublicClient({ transport: webSocket(`${alone.base.replace('http://', 'ws://')}/ws/v3/${KEY_A}`) });
      const viemHttp = createPublicClient({ transport: http(`${alone.base}/v3/${KEY_A}`), pollingInterval: 100 });
      const unwatch = [
        viemWs.watchPendingTransactions({ onTransactions: () => seen.push('tx'), onError: (e) => seen.push(`ws: ${e.message}`) }),
        viemHttp.watchPendingTransactions({ onTransactions: () => seen.push('tx'), onError: (e) => seen.push(`http: ${e.message}`) }),
      ];
      await until(
        'both refused',
        () => seen.length,
        (n) => n >= 2,
      );
      for (const u of unwatch) u();
      await closeViem(viemWs);
      expect(seen.filter((s) => s === 'tx')).toEqual([]);
      // Over HTTP viem names -32004 itself and quotes our message under Details.
      expect(seen.find((s) => s.startsWith('ws: '))).toBe(`ws: newPendingTransactions ${why}`);
      expect(seen.find((s) => s.startsWith('http: '))).toContain(`Details: eth_newPendingTransactionFilter ${why}`);
    } finally {
      alone.child.kill('SIGTERM');
      await alone.exited;
    }
  });

  it('limits: subscriptions per connection, filters per key; a filter is its key’s alone; eth_getFilterLogs answers as eth_getLogs', async () => {
    const ws = await openWs(KEY_A);
    try {
      const answers = await ws.batch(Array.from({ length: 101 }, () => ['eth_subscribe', ['newHeads']] as const));
      expect(answers.slice(0, 100).every((a) => typeof a.result === 'string')).toBe(true);
      expect(new Set(answers.slice(0, 100).map((a) => a.result)).size).toBe(100);
      expect(answers[100]).toEqual({ error: { code: -32005, message: 'too many subscriptions on this connection (limit 100)' } });
      expect(await metric('tracenode_subscriptions{network="mainnet",kind="subscription"}')).toBe(100);
    } finally {
      ws.close();
    }
    const filtersBefore = await metric('tracenode_subscriptions{network="mainnet",kind="filter"}');
    const made = await Promise.all(Array.from({ length: FILTERS_PER_KEY }, () => ours('eth_newBlockFilter', [], KEY_B)));
    expect(made.every((a) => typeof a.result === 'string')).toBe(true);
    expect((await ours('eth_newBlockFilter', [], KEY_B)).error).toEqual({
      code: -32005,
      message: `too many filters for this key (limit ${FILTERS_PER_KEY}); uninstall unused ones`,
    });
    // Another key is not affected, and cannot see, poll or remove this key's filters.
    const criteria = { fromBlock: '0x0', address: ticker, topics: [TICK_TOPIC] };
    const mine = (await ours('eth_newFilter', [criteria])).result as string;
    // Earlier tests' filters are still installed (a filter lives until uninstalled or expired).
    expect(await metric('tracenode_subscriptions{network="mainnet",kind="filter"}')).toBe(filtersBefore! + FILTERS_PER_KEY + 1);
    expect((await ours('eth_getFilterChanges', [mine], KEY_B)).error).toEqual({ code: -32000, message: 'filter not found' });
    expect((await ours('eth_getFilterLogs', [mine], KEY_B)).error).toEqual({ code: -32000, message: 'filter not found' });
    expect((await ours('eth_uninstallFilter', [mine], KEY_B)).result).toBe(false);
    // eth_getFilterLogs: what eth_getLogs answers, which is anvil's canonical logs.
    const logs = (await ours('eth_getFilterLogs', [mine])).result as Array<{ transactionHash: string }>;
    expect(logs).toEqual((await ours('eth_getLogs', [criteria])).result);
    expect(logs).toEqual(
      await anvil.call('eth_getLogs', [criteria]).then((l) => (l as Array<Record<string, unknown>>).map((x) => ({ ...x, blockTimestamp: expect.any(String) }))),
    );
    expect(logs).toHaveLength(5); // branch B's two, the pending-transaction test's one, the cast test's two
    expect((await ours('eth_getFilterLogs', [made[0].result])).error).toEqual({ code: -32000, message: 'filter not found' });
    expect((await ours('eth_uninstallFilter', [mine])).result).toBe(true);
    expect((await ours('eth_getFilterChanges', [mine])).error).toEqual({ code: -32000, message: 'filter not found' });
    for (const f of made) expect((await ours('eth_uninstallFilter', [f.result], KEY_B)).result).toBe(true);
  });

  it('a subscriber that stops reading is closed with 1008 once its unread notifications pass the backlog limit, and counted', async () => {
    const ws = await openWs(KEY_A);
    const subscribed = await ws.batch(Array.from({ length: 100 }, () => ['eth_subscribe', ['newHeads']] as const));
    expect(subscribed.every((a) => typeof a.result === 'string')).toBe(true);
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    // Stop reading: the server's writes fill the kernel's buffers, then the socket's own queue.
    (ws.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    // 120 blocks × 100 subscriptions × ~1.4 kB of header: ~17 MB, past what loopback TCP buffers hold.
    for (let i = 0; i < 120; i++) await anvil.mine();
    await caughtUp();
    (ws.socket as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await closed).toEqual({ code: 1008, reason: 'notifications left unread past the server limit' });
    const metrics = (await rawHttp(`${serve.base}/metrics`, { method: 'GET' })).text;
    expect(metrics).toMatch(/^tracenode_websocket_closed_total\{reason="notification_backlog"\} 1$/m);
  }, 60_000);
});
