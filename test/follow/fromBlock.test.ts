import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { bytesToHex } from '@ethereumjs/util';
import { encodeFunctionData, type Hex, parseAbi } from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type BuiltChain, buildAnvilChain } from '../../scripts/anvil/buildAnvilChain.js';
import { accountFor } from '../../scripts/anvil/chainParams.js';
import { type EthereumChain, openChain } from '../../src/chain/open.js';
import { createEthereumNetwork, type EthereumNetwork } from '../../src/cli/networks.js';
import { META, PREFIX } from '../../src/db/keys.js';
import { readAnchor } from '../../src/follow/anchor.js';
import { Upstream } from '../../src/follow/upstream.js';
import { UpstreamStateSource } from '../../src/follow/upstreamState.js';
import { type RawAnswer, rawCall, rawResult } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { runCli, startServeCli } from '../helpers/cli.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { rawHttp, type StartedServer, startServer } from '../helpers/rpcClient.js';
import { testConfig } from '../helpers/testConfig.js';
import { until } from '../helpers/until.js';

/**
 * An archive that starts at block N (issue 26, part A): `init --from-node URL --at 16` on the
 * anvil `state` chain (32 blocks), served with the anvil behind a proxy as the state source. Every
 * state method at block 16 answers what anvil answers — an EOA, a contract with storage and code,
 * an absent account, an absent slot; eth_getProof's nodes, eth_call — while no state was
 * downloaded up front; a key read twice is fetched once (the proxy counts the requests); below
 * block 16 the documented errors; with the upstream away a fresh key answers -32002 and a held one
 * still answers; a proxy that alters a proof node or the code gets nothing stored. Then `serve
 * --follow URL --from 16` on an empty datadir (the rules found from the node itself).
 */

const describe = describeWithFoundry(['anvil'], 'archive from block N');
const tmp = tempDir('tracenode-from-block-');
const N = 16;
const NHEX = `0x${N.toString(16)}`;
let built: BuiltChain;
let proxy: Proxy;
let chain: EthereumChain;
let network: EthereumNetwork;
let server: StartedServer;
let url: string;
const children: ChildProcess[] = [];

const alice = accountFor('alice').address;
const ABSENT = '0x00000000000000000000000000000000000a0b5e';
const ABSENT_SLOT = `0x${'99'.padStart(64, '0')}`;

/** A JSON-RPC proxy in front of anvil that counts the methods asked and can be down or alter answers. */
interface Proxy {
  url: string;
  mode: 'pass' | 'down' | 'tamperProof' | 'tamperCode';
  count(method: string): number;
  close(): Promise<void>;
}

async function startProxy(target: string): Promise<Proxy> {
  const counts = new Map<string, number>();
  const state = { mode: 'pass' as Proxy['mode'] };
  const srv: Server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    if (state.mode === 'down') {
      res.destroy();
      return;
    }
    const calls = [JSON.parse(body)].flat() as Array<{ method: string }>;
    for (const c of calls) counts.set(c.method, (counts.get(c.method) ?? 0) + 1);
    const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    let text = await answer.text();
    if (state.mode !== 'pass' && calls.length === 1) text = tamper(text, calls[0].method, state.mode);
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(text);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    get mode() {
      return state.mode;
    },
    set mode(m) {
      state.mode = m;
    },
    count: (method) => counts.get(method) ?? 0,
    close: () => new Promise((r) => srv.close(() => r())),
  };
}

/** One hex digit of the last account-proof node, or of the code, changed. */
function tamper(text: string, method: string, mode: Proxy['mode']): string {
  const json = JSON.parse(text) as { result?: { accountProof?: string[] } | string };
  const flip = (hex: string) => `${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}`;
  if (mode === 'tamperProof' && method === 'eth_getProof' && typeof json.result === 'object' && json.result.accountProof) {
    const p = json.result.accountProof;
    p[p.length - 1] = flip(p[p.length - 1]);
  }
  if (mode === 'tamperCode' && method === 'eth_getCode' && typeof json.result === 'string' && json.result.length > 2) json.result = flip(json.result);
  return JSON.stringify(json);
}

const anvil = (method: string, params: unknown[]) => rawResult(built.anvil!.url, method, params);
const ours = (method: string, params: unknown[]): Promise<RawAnswer> => rawCall(url, method, params);
const result = async (method: string, params: unknown[]) => {
  const a = await ours(method, params);
  if (a.error) throw new Error(`${method}: ${JSON.stringify(a.error)}`);
  return a.result;
};
const fetches = () => proxy.count('eth_getProof') + proxy.count('eth_getCode');

/** State nodes and code the datadir holds. */
async function stateKeys(): Promise<number> {
  return (await chain.level.keys({ gte: Uint8Array.of(PREFIX.state), lt: Uint8Array.of(PREFIX.state + 1) }).all()).length;
}

beforeAll(async () => {
  built = await buildAnvilChain({ outDir: join(tmp.dir, 'anvil'), scenario: 'state', keepRunning: true });
  proxy = await startProxy(built.anvil!.url);
  const datadir = join(tmp.dir, 'data');
  const init = await runCli(['init', '--datadir', datadir, '--from-node', proxy.url, '--at', String(N), '--genesis', built.genesisPath]);
  if (init.code !== 0) throw new Error(`init failed: ${init.stdout}${init.stderr}`);
  const config = testConfig();
  chain = await openChain(datadir, config.caches);
  const stateSource = new UpstreamStateSource(new Upstream(proxy.url, { requestTimeoutMs: 5000 }), chain.store, chain.start!);
  network = await createEthereumNetwork(chain, { name: 'mainnet', hostnames: ['mainnet'], clientVersion: 'test', config, stateSource });
  server = await startServer({ networks: [network.handle] });
  url = `${server.url}/v3/${server.key}`;
}, 240_000);

afterAll(async () => {
  for (const c of children) {
    c.kill('SIGTERM');
    await new Promise((r) => (c.exitCode !== null ? r(undefined) : c.once('close', r)));
  }
  await server?.close();
  await network?.close();
  await chain?.close();
  await proxy?.close();
  await built?.anvil?.stop();
  tmp.cleanup();
});

describe('an archive from block N', () => {
  it('the datadir is schema 2 (archiveStart): a release that reads only schema 1 refuses it', async () => {
    expect([...((await chain.level.get(META.schema)) ?? [])]).toEqual([0, 0, 0, 2]);
  });

  it('holds block N as its first block and head, and no state', async () => {
    expect(chain.start?.number).toBe(BigInt(N));
    expect(bytesToHex(chain.start!.hash)).toBe(built.blocks[N].hash);
    expect(await result('eth_blockNumber', [])).toBe(NHEX);
    const block = (await result('eth_getBlockByNumber', [NHEX, true])) as { hash: string; transactions: Array<{ hash: string }> };
    expect(block.hash).toBe(built.blocks[N].hash);
    const theirs = (await anvil('eth_getBlockByNumber', [NHEX, true])) as typeof block;
    expect(block.transactions.map((t) => t.hash)).toEqual(theirs.transactions.map((t) => t.hash));
    // Its receipts (from the upstream, checked against the receiptsRoot; gas used, contract address derived
    // here): anvil's, but for the blob gas price it gives every receipt and its numeric blockTimestamp.
    const receipts = (await anvil('eth_getBlockReceipts', [NHEX])) as Array<Record<string, unknown>>;
    expect(await result('eth_getBlockReceipts', [NHEX])).toEqual(receipts.map(({ blobGasPrice, blockTimestamp, ...r }) => r));
    expect(((await result('eth_getBlockByNumber', ['earliest', false])) as { number: string }).number).toBe(NHEX);
    expect(await stateKeys()).toBe(0);
    expect(fetches()).toBe(0);
  });

  it('answers the state methods at block N as anvil does, fetching each key once', async () => {
    const { StateBox, Token } = built.info.contracts;
    const box = built.info.slots!.StateBox;
    const accounts = [alice, StateBox, Token, ABSENT];
    for (const a of accounts) {
      for (const m of ['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode']) {
        expect(await result(m, [a, NHEX]), `${m} ${a}`).toBe(await anvil(m, [a, NHEX]));
      }
    }
    for (const slot of [box.counter, box['credits[alice]'], box['grid[alice][2]'], ABSENT_SLOT]) {
      expect(await result('eth_getStorageAt', [StateBox, slot, NHEX]), slot).toBe(await anvil('eth_getStorageAt', [StateBox, slot, NHEX]));
    }
    const slots = [box.counter, box['credits[alice]'], ABSENT_SLOT];
    for (const a of [StateBox, alice, ABSENT]) {
      const proof = (await result('eth_getProof', [a, slots, NHEX])) as Record<string, unknown> & { storageProof: Array<Record<string, unknown>> };
      const theirs = (await anvil('eth_getProof', [a, slots, NHEX])) as typeof proof;
      expect(proof.accountProof, `accountProof ${a}`).toEqual(theirs.accountProof);
      for (const f of ['balance', 'nonce', ...(a === ABSENT ? [] : ['codeHash', 'storageHash'])]) expect(proof[f], `${f} ${a}`).toBe(theirs[f]);
      // An account without storage: each key's proof is empty here, as geth answers it (anvil gives the empty root node).
      if (a === StateBox) expect(proof.storageProof.map((p) => [p.value, p.proof])).toEqual(theirs.storageProof.map((p) => [p.value, p.proof]));
      else expect(proof.storageProof.map((p) => p.value)).toEqual(theirs.storageProof.map((p) => p.value));
    }
    const balanceOf = encodeFunctionData({ abi: parseAbi(['function balanceOf(address) view returns (uint256)']), args: [alice as Hex] });
    const call = [{ to: Token, data: balanceOf }, NHEX];
    expect(await result('eth_call', call)).toBe(await anvil('eth_call', call));
    // Everything again: nothing more is asked of the upstream.
    const before = fetches();
    expect(before).toBeGreaterThan(0);
    for (const a of accounts) await result('eth_getBalance', [a, NHEX]);
    await result('eth_getStorageAt', [StateBox, box.counter, NHEX]);
    await result('eth_getProof', [StateBox, slots, NHEX]);
    await result('eth_call', call);
    expect(fetches()).toBe(before);
    const metrics = (await rawHttp(`${server.url}/metrics`, { method: 'GET' })).text;
    expect(metrics).toMatch(/tracenode_remote_state_fetches_total\{network="mainnet",kind="proof"\} [1-9]/);
    expect(metrics).toMatch(/tracenode_state_local_hit_ratio\{network="mainnet"\} 0\.\d+/);
  });

  it('below block N: the state is missing trie node (-32000), blocks are pruned history (4444)', async () => {
    const below = `0x${(N - 1).toString(16)}`;
    const data = { archiveStart: NHEX };
    expect((await ours('eth_getBalance', [alice, below])).error).toEqual({
      code: -32000,
      message: `missing trie node: the state of block ${N - 1} is not available, this archive starts at block ${N}`,
      data,
    });
    expect((await ours('eth_call', [{ to: alice }, below])).error?.code).toBe(-32000);
    const pruned = { code: 4444, message: `pruned history unavailable: block ${N - 1} is before this archive's first block ${N}`, data };
    expect((await ours('eth_getBlockByNumber', [below, false])).error).toEqual(pruned);
    expect((await ours('eth_getLogs', [{ fromBlock: below, toBlock: NHEX }])).error).toEqual(pruned);
    expect((await ours('trace_filter', [{ fromBlock: below }])).error).toEqual(pruned);
    expect((await ours('eth_getBlockByHash', [built.blocks[N - 1].hash, false])).result).toBeNull();
    // Tracing block N replays it on block N-1's state.
    expect((await ours('trace_block', [NHEX])).error).toMatchObject({ code: -32000, message: expect.stringContaining(`the state of block ${N - 1}`) });
  });

  it('init recorded the hashes of the blocks below N (each header checked): BLOCKHASH of them in eth_call at N is the chain’s', async () => {
    // The chain's hash of block k is block k+1's parentHash. (This anvil loaded the chain from
    // its dump (--load-state), and its own BLOCKHASH of those blocks answers other hashes: not compared.)
    const recorded = (await chain.level.get(META.archiveAncestors))!;
    expect(recorded.length).toBe(N * 32);
    for (const k of [0, 1, N - 2, N - 1]) {
      const want = ((await anvil('eth_getBlockByNumber', [`0x${(k + 1).toString(16)}`, false])) as { parentHash: string }).parentHash;
      expect(bytesToHex(recorded.subarray(k * 32, k * 32 + 32))).toBe(want);
      // Creation code returning a zero byte, then BLOCKHASH(k): PUSH1 k, BLOCKHASH, PUSH1 1, MSTORE,
      // PUSH1 33, PUSH0, RETURN (what a creation returns is code: one starting with 0xef is refused).
      const tx = { data: `0x60${k.toString(16).padStart(2, '0')}4060015260215ff3` };
      expect(await result('eth_call', [tx, NHEX])).toBe(`0x00${want.slice(2)}`);
    }
  });

  it('with the upstream away: a fresh key answers -32002 (retry), a held one still answers', async () => {
    proxy.mode = 'down';
    try {
      const fresh = await ours('eth_getBalance', [accountFor('erin').address, NHEX]);
      expect(fresh.error).toMatchObject({ code: -32002, data: { retryable: true } });
      expect(fresh.error?.message).toMatch(/upstream/);
      expect(await result('eth_getBalance', [alice, NHEX])).toBe(await anvil('eth_getBalance', [alice, NHEX]));
    } finally {
      proxy.mode = 'pass';
    }
    expect(await result('eth_getBalance', [accountFor('erin').address, NHEX])).toBe(await anvil('eth_getBalance', [accountFor('erin').address, NHEX]));
  });

  it('an upstream that alters a proof node or the code has nothing stored from it', async () => {
    const held = await stateKeys();
    proxy.mode = 'tamperProof';
    try {
      const altered = await ours('eth_getBalance', [accountFor('dave').address, NHEX]);
      expect(altered.error).toMatchObject({ code: -32002, message: expect.stringContaining('does not hang from the trusted state root') });
      expect(await stateKeys()).toBe(held);
    } finally {
      proxy.mode = 'pass';
    }
    const { Factory } = built.info.contracts;
    expect(await result('eth_getBalance', [Factory, NHEX])).toBe(await anvil('eth_getBalance', [Factory, NHEX]));
    const withAccount = await stateKeys();
    proxy.mode = 'tamperCode';
    try {
      const altered = await ours('eth_getCode', [Factory, NHEX]);
      expect(altered.error).toMatchObject({ code: -32002, message: expect.stringContaining('does not hash to its code hash') });
      expect(await stateKeys()).toBe(withAccount);
    } finally {
      proxy.mode = 'pass';
    }
    expect(await result('eth_getCode', [Factory, NHEX])).toBe(await anvil('eth_getCode', [Factory, NHEX]));
  });

  it("a start block's receipts: a creation's contract address and each gas used are derived, as anvil gives them", async () => {
    // Block 2 deploys StateBox.
    const upstream = new Upstream(built.anvil!.url, { requestTimeoutMs: 5000 });
    try {
      const anchor = await readAnchor(upstream, { at: '2', genesisText: readFileSync(built.genesisPath, 'utf8') });
      const theirs = (await anvil('eth_getBlockReceipts', ['0x2'])) as Array<{ contractAddress: string | null; gasUsed: string }>;
      expect(anchor.receipts.map((r) => [r.contractAddress && bytesToHex(r.contractAddress), `0x${r.gasUsed.toString(16)}`])).toEqual(
        theirs.map((r) => [r.contractAddress, r.gasUsed]),
      );
      expect(anchor.receipts.some((r) => r.contractAddress !== undefined)).toBe(true);
      expect(anchor.rulesSource).toBe('genesis file');
    } finally {
      upstream.close();
    }
  });

  it('init refuses a start block whose hash is not the checkpoint, and writes nothing', async () => {
    const datadir = join(tmp.dir, 'checkpoint');
    const wrong = built.blocks[N - 1].hash;
    const r = await runCli([
      'init',
      '--datadir',
      datadir,
      '--from-node',
      proxy.url,
      '--at',
      String(N),
      '--checkpoint-hash',
      wrong,
      '--genesis',
      built.genesisPath,
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`the upstream's block ${N} is ${built.blocks[N].hash}, not the checkpoint ${wrong}`);
    expect(existsSync(datadir)).toBe(false);
  });

  it('serve --follow URL --from N on an empty datadir: the rules from the node itself; /health and the startup line say it', async () => {
    const datadir = join(tmp.dir, 'served');
    const serve = await startServeCli([
      '--datadir',
      datadir,
      '--port',
      '0',
      '--api-keys',
      'k',
      '--log-level',
      'warn',
      '--follow',
      proxy.url,
      '--from',
      String(N),
    ]);
    children.push(serve.child);
    expect(serve.output()).toContain(`serve: archive from block ${N} (${built.blocks[N].hash}`);
    expect(serve.output()).toMatch(new RegExp(`network mainnet \\(ethereum, default\\) at block ${N}, archive from block ${N}`));
    // The follower finds the node's block N to be this datadir's, then executes the blocks after it on fetched state.
    const health = await until(
      'caught up',
      async () => JSON.parse((await rawHttp(`${serve.base}/health`, { method: 'GET' })).text) as Record<string, unknown>,
      // Block 32 written, and the round that wrote it over (the state says `following` after it).
      (h) => (h.head as { number: number }).number === 32 && h.following === 'following',
      30_000,
    );
    expect(health).toMatchObject({ ok: true, archiveFrom: N, head: { number: 32, hash: built.blocks[32].hash }, upstreamHead: 32, following: 'following' });
    const answer = await rawCall(`${serve.base}/v3/k`, 'eth_getBalance', [alice, NHEX]);
    expect(answer.result).toBe(await anvil('eth_getBalance', [alice, NHEX]));
  });
});
