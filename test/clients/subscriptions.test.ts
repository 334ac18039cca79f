import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Contract, type Log as EthersLog, JsonRpcProvider, WebSocketProvider } from 'ethers';
import {
  type Address,
  createPublicClient,
  encodeAbiParameters,
  type Hex,
  http,
  parseAbi,
  parseAbiItem,
  toEventSelector,
  type Log as ViemLog,
  webSocket,
} from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { accountFor } from '../../scripts/anvil/chainParams.js';
import { initDatadir } from '../../src/import/init.js';
import { rawResult } from '../helpers/anvilPeer.js';
import { type BareAnvil, startBareAnvil } from '../helpers/bareAnvil.js';
import { tempDir } from '../helpers/chains.js';
import { type ServeCli, startServeCli } from '../helpers/cli.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { rawHttp } from '../helpers/rpcClient.js';
import { testConfig } from '../helpers/testConfig.js';

/**
 * Subscriptions and filters with real clients, on a chain that moves: `tracenode serve --follow`
 * beside an anvil on which the test mines blocks holding `Tick` events, then a reorganisation
 * (evm_snapshot, branch A, evm_revert, a longer branch B). Every client must receive exactly
 * anvil's blocks and logs, in order, and after the switch A's logs again with `removed: true`
 * (newest first) before B's. Expected values are anvil's own answers (block hashes, receipts).
 */

const describe = describeWithFoundry(['anvil'], 'subscriptions and filters');
const tmp = tempDir('tracenode-subs-');
const KEY_A = 'subs-key-a';
const KEY_B = 'subs-key-b';
const FILTERS_PER_KEY = 20;
const alice = accountFor('alice').address;
let anvil: BareAnvil;
let serve: ServeCli;
let ticker: Address;

/** `event Tick(uint256 indexed id, uint256 value)`, emitted by a contract that logs its calldata (id, value). */
const TICK_ABI = parseAbi(['event Tick(uint256 indexed id, uint256 value)']);
const TICK_TOPIC = toEventSelector(parseAbiItem('event Tick(uint256 indexed id, uint256 value)'));
// Runtime: value = calldata[32:64] → memory[0:32]; LOG2(memory[0:32], TICK_TOPIC, calldata[0:32]); STOP.
const RUNTIME = `6020356000526000357f${TICK_TOPIC.slice(2)}60206000a200`;
const INITCODE = '0x6030600c60003960306000f3';

const http_ = () => `${serve.base}/v3/${KEY_A}`;
const ws_ = () => `${serve.base.replace('http://', 'ws://')}/ws/v3/${KEY_A}`;
const ours = (method: string, params: unknown[] = [], key = KEY_A) => rawCall(`${serve.base}/v3/${key}`, method, params);

async function rawCall(url: string, method: string, params: unknown[]): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const r = await rawHttp(url, { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return JSON.parse(r.text);
}

async function until<T>(what: string, read: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`${what}: still ${JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))}`);
    await sleep(50);
  }
}

/** Waits until tracenode's latest block is anvil's. */
async function caughtUp(): Promise<void> {
  const theirs = ((await anvil.call('eth_getBlockByNumber', ['latest', false])) as { hash: string }).hash;
  await until(
    'caught up',
    async () => ((await ours('eth_getBlockByNumber', ['latest', false])).result as { hash: string } | null)?.hash,
    (h) => h === theirs,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; serve said: ${serve.output().slice(-1500)}`);
  });
}

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
  const deploy = await anvil.send({ data: `${INITCODE}${RUNTIME}`, gas: 0x100000n });
  await anvil.mine();
  ticker = ((await anvil.call('eth_getTransactionReceipt', [deploy])) as { contractAddress: Address }).contractAddress;
  serve = await startServeCli([
    ...['--datadir', datadir, '--port', '0', '--api-keys', `${KEY_A},${KEY_B}`, '--log-level', 'warn'],
    ...['--follow', anvil.url, '--follow.poll-interval-ms', '50'],
    ...['--subscriptions.filters-per-key', String(FILTERS_PER_KEY), '--subscriptions.max-backlog-bytes', '65536'],
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
    // A raw block filter, polled at the end.
    const blockFilter = (await ours('eth_newBlockFilter')).result as string;
    expect(blockFilter).toMatch(/^0x[1-9a-f][0-9a-f]{0,31}$/);
    await sleep(1500); // subscriptions answered, first filter polls made

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
    await sleep(500); // nothing more may arrive
    expect(viemWsLogs).toEqual(expectedLogs);
    expect(viemHttpLogs).toEqual(expectedLogs);
    // ethers hands a log with removed: true to its "orphan" event, never to the contract's listener:
    // those see the live logs of both branches.
    const live = [...branchA, ...branchB];
    expect(ethersWsLogs).toEqual(live);
    expect(ethersHttpLogs).toEqual(live);
    expect(viemBlocks).toEqual(expectedHashes);
    expect(viemNumbers).toEqual(expectedNumbers.map(BigInt));
    expect(ethersBlocks).toEqual(expectedNumbers);
    expect((await ours('eth_getFilterChanges', [blockFilter])).result).toEqual(expectedHashes);
    expect((await ours('eth_getFilterChanges', [blockFilter])).result).toEqual([]);
    expect(errors).toEqual([]);

    for (const u of unwatch) u();
    await ethersWs.destroy();
    ethersHttp.destroy();
  }, 60_000);
});
