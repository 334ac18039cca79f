import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { type EthereumChain, openChain } from '../../src/chain/open.js';
import { initArchiveFrom } from '../../src/cli/archiveFrom.js';
import { createEthereumNetwork, type EthereumNetwork } from '../../src/cli/networks.js';
import type { Config } from '../../src/config/settings.js';
import { Follower } from '../../src/follow/follower.js';
import { Upstream } from '../../src/follow/upstream.js';
import { UpstreamStateSource } from '../../src/follow/upstreamState.js';
import { type RawAnswer, rawCall } from '../helpers/anvilPeer.js';
import { rawHttp, type StartedServer, startServer } from '../helpers/rpcClient.js';
import { testConfig } from '../helpers/testConfig.js';
import { simulatedWork, until } from '../helpers/until.js';

/**
 * An archive that starts at block N of an upstream (anvil, or a full tracenode), following it in
 * this process and served on 127.0.0.1: what the tests of part B (issue 26: following from block
 * N) share. The follower's log lines are kept; its status says what it fetched.
 */
export interface PartialArchive {
  /** The JSON-RPC URL (`…/v3/<key>`). */
  url: string;
  base: string;
  chain: EthereumChain;
  follower: Follower;
  lines: string[];
  /** The follower's progress output (catch-up lines). */
  progress: string[];
  metrics(): Promise<string>;
  /** The head block number served. */
  head(): Promise<number>;
  close(): Promise<void>;
}

/** Inits `datadir` as an archive from block `at` of `upstreamUrl` (unless it is one already), then follows and serves it. */
export async function startPartialArchive(
  datadir: string,
  upstreamUrl: string,
  opts: { at?: string; genesisText?: string; config?: Config } = {},
): Promise<PartialArchive> {
  const config = opts.config ?? testConfig({ follow: { pollIntervalMs: 50, batchBlocks: 8, retryMaxMs: 500 }, import: { progressIntervalMs: 10 } });
  if (opts.at !== undefined) await initArchiveFrom(datadir, upstreamUrl, { at: opts.at, genesisText: opts.genesisText }, config, () => undefined);
  const chain = await openChain(datadir, config.caches);
  const stateSource = new UpstreamStateSource(new Upstream(upstreamUrl, { requestTimeoutMs: 5000 }), chain.store, chain.start!);
  const lines: string[] = [];
  const progress: string[] = [];
  const log = {
    info: (o: object, m: string) => lines.push(`info ${m} ${JSON.stringify(o)}`),
    warn: (o: object, m: string) => lines.push(`warn ${m} ${JSON.stringify(o)}`),
    error: (o: object, m: string) => lines.push(`error ${m} ${JSON.stringify(o)}`),
    debug: () => undefined,
  };
  let network: EthereumNetwork | undefined;
  const follower = new Follower(chain, new Upstream(upstreamUrl, { requestTimeoutMs: 5000 }), {
    settings: config.follow,
    importSettings: config.import,
    log,
    progress: { write: (s: string) => progress.push(s) } as unknown as NodeJS.WritableStream,
    onHead: () => void network?.context.events.headMoved(),
  });
  network = await createEthereumNetwork(chain, { name: 'mainnet', hostnames: ['mainnet'], clientVersion: 'test', config, stateSource, follower });
  const server: StartedServer = await startServer({ networks: [network.handle] });
  follower.start();
  const url = `${server.url}/v3/${server.key}`;
  return {
    url,
    base: server.url,
    chain,
    follower,
    lines,
    progress,
    metrics: async () => (await rawHttp(`${server.url}/metrics`, { method: 'GET' })).text,
    head: async () => Number(BigInt(((await rawCall(url, 'eth_blockNumber', [])).result as string) ?? '0x0')),
    close: async () => {
      await follower.stop();
      await server.close();
      await network?.close();
      await chain.close();
    },
  };
}

/** Waits until the archive serves `number` as its head (the follower's status and lines in the error). */
export async function caughtUpTo(p: PartialArchive, number: number, timeoutMs = 20_000): Promise<void> {
  chainStoreForget(p.chain);
  const status = () => JSON.stringify(p.follower.status(), (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  await until(
    `caught up to ${number}`,
    () => p.head(),
    (h) => h >= number,
    timeoutMs,
    () => `${status()} ${p.lines.slice(-5).join(' | ')}`,
  );
}

function chainStoreForget(chain: EthereumChain): void {
  chain.store.invalidateHead();
}

/** A sample to compare at a block: accounts, and slots of some of them. */
export interface StateSample {
  accounts: string[];
  slots: Array<[string, string]>;
  /** Accounts whose eth_getProof is compared (with the slots of `slots` for them). */
  proofs: string[];
  /** eth_call requests (no `to`: creation code that reads state and returns it). */
  calls: object[];
}

/** `ours` and `theirs` answer every state method of `sample` at `block` alike (eth_getProof: the account's nodes and fields, each slot's value and nodes). */
export async function expectSameState(ours: string, theirs: string, block: string, sample: StateSample): Promise<number> {
  let compared = 0;
  const both = async (method: string, params: unknown[]) => {
    const [a, b] = await Promise.all([rawCall(ours, method, params), rawCall(theirs, method, params)]);
    expect(a.error, `${method} ${JSON.stringify(params)}: ${JSON.stringify(a.error)}`).toBeUndefined();
    compared++;
    return [a.result, b.result] as const;
  };
  for (const account of sample.accounts) {
    for (const method of ['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode']) {
      const [a, b] = await both(method, [account, block]);
      expect(a, `${method} ${account} at ${block}`).toEqual(b);
    }
  }
  for (const [account, slot] of sample.slots) {
    const [a, b] = await both('eth_getStorageAt', [account, slot, block]);
    expect(a, `eth_getStorageAt ${account} ${slot} at ${block}`).toEqual(b);
  }
  for (const account of sample.proofs) {
    const keys = sample.slots.filter(([a]) => a === account).map(([, s]) => s);
    const [a, b] = (await both('eth_getProof', [account, keys, block])) as unknown as Array<
      Record<string, unknown> & { storageProof: Array<{ value: string; proof: string[] }> }
    >;
    // An absent account: geth and tracenode give zero hashes, anvil the empty code's and the empty trie's (docs/methods.md).
    const absent = /^0x0{64}$/.test(String(a.codeHash));
    for (const f of ['accountProof', 'balance', 'nonce', ...(absent ? [] : ['codeHash', 'storageHash'])])
      expect(a[f], `eth_getProof ${account} ${f} at ${block}`).toEqual(b[f]);
    // Keys of an empty storage: anvil proves them with the empty root node ["0x80"], geth and tracenode with none.
    const proofs = (p: { proof: string[] }) => (p.proof.length === 1 && p.proof[0] === '0x80' ? [] : p.proof);
    expect(
      a.storageProof.map((p) => [p.value, proofs(p)]),
      `eth_getProof ${account} storage at ${block}`,
    ).toEqual(b.storageProof.map((p) => [p.value, proofs(p)]));
  }
  for (const call of sample.calls) {
    const [a, b] = await both('eth_call', [call, block]);
    expect(a, `eth_call at ${block}`).toEqual(b);
  }
  return compared;
}

/** Creation code whose eth_call returns, for each address, its balance and code hash (read by the EVM on the block's state). */
export function readerCall(addresses: readonly string[]): object {
  let code = '';
  addresses.forEach((a, i) => {
    const at = (i * 64).toString(16).padStart(4, '0');
    const hashAt = (i * 64 + 32).toString(16).padStart(4, '0');
    // PUSH20 a BALANCE PUSH2 at MSTORE PUSH20 a EXTCODEHASH PUSH2 hashAt MSTORE
    code += `73${a.slice(2)}3161${at}5273${a.slice(2)}3f61${hashAt}52`;
  });
  const size = (addresses.length * 64).toString(16).padStart(4, '0');
  return { data: `0x${code}61${size}6000f3` };
}

/** A JSON-RPC proxy that counts the methods asked and can refuse, delay or alter answers. */
export interface RpcProxy {
  url: string;
  /** Methods answered -32601 (as a node without them). */
  refuse: Set<string>;
  /** Alters a method's result (JSON) before it is relayed; undefined: unchanged. */
  alter: ((method: string, result: unknown) => unknown) | undefined;
  /** Holds answers of these methods this long (ms). */
  delay: Map<string, number>;
  down: boolean;
  count(method: string): number;
  /** Resolves once `count` requests for `method` have arrived in all. */
  reached(method: string, count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startProxy(target: string): Promise<RpcProxy> {
  const counts = new Map<string, number>();
  const proxy = { refuse: new Set<string>(), alter: undefined, delay: new Map<string, number>(), down: false } as RpcProxy;
  const srv: Server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    if (proxy.down) {
      res.destroy();
      return;
    }
    const parsed = JSON.parse(body) as { id: number; method: string } | Array<{ id: number; method: string }>;
    const calls = [parsed].flat();
    for (const c of calls) counts.set(c.method, (counts.get(c.method) ?? 0) + 1);
    const wait = Math.max(0, ...calls.map((c) => proxy.delay.get(c.method) ?? 0));
    if (wait > 0) await simulatedWork(wait);
    const refused = calls.filter((c) => proxy.refuse.has(c.method));
    let answers: RawAnswer[];
    if (refused.length === calls.length) {
      answers = calls.map((c) => ({ jsonrpc: '2.0', id: c.id, error: { code: -32601, message: 'Method not found' } }) as RawAnswer);
    } else {
      const r = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      answers = [await r.json()].flat() as RawAnswer[];
    }
    if (proxy.alter) {
      for (const [i, a] of answers.entries()) if (a.result !== undefined) a.result = proxy.alter(calls[i].method, a.result) ?? a.result;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  proxy.url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  proxy.count = (method) => counts.get(method) ?? 0;
  proxy.reached = async (method, count) => {
    await until(
      `${count} ${method} calls through the proxy`,
      () => counts.get(method) ?? 0,
      (n) => n >= count,
    );
  };
  proxy.close = () =>
    new Promise((r) => {
      srv.closeAllConnections();
      srv.close(() => r());
    });
  return proxy;
}

/** One hex digit of `hex` changed (its last). */
export function flip(hex: string): string {
  return `${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}`;
}
