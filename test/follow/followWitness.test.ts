import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREFIX } from '../../src/db/keys.js';
import { rawCall, rawResult } from '../helpers/anvilPeer.js';
import { FIXTURES, tempDir } from '../helpers/chains.js';
import { runCli, startServeCli } from '../helpers/cli.js';
import { type EthTestServer, startEthServer } from '../helpers/ethServer.js';
import { quiet, until } from '../helpers/until.js';
import {
  caughtUpTo,
  expectSameState,
  flip,
  type PartialArchive,
  type RpcProxy,
  readerCall,
  type StateSample,
  startPartialArchive,
  startProxy,
} from './partialArchive.js';

/**
 * Following from block N (issue 26, part B) a full tracenode: one that imported the
 * execution-apis chain from its genesis (Osaka and the BPO forks; creations, CREATE2,
 * self-destructs, storage cleared, EIP-7702) and serves debug_executionWitness, eth_getProof,
 * eth_getCode, debug_getRawBlock. A second tracenode starts at block 36 and executes 37..54 on
 * the witnesses alone: at every block from N it answers the state methods, eth_getProof and
 * eth_call as the full node does, and its metrics say the witness was used. The same through a
 * proxy that refuses debug_executionWitness: the prestateTracer source, on a chain whose
 * deletions collapse branches (the siblings fetched through searched keys). Through a proxy that
 * alters one witness entry, one proof node, one code byte of a prestate or one storage value of
 * a proof: nothing of it is stored, the error is logged once, and following resumes once the
 * proxy stops lying. SIGKILL during a witness fetch and during a remote read: the datadir opens,
 * following resumes, the answers are the full node's.
 */

const FIXTURE = join(FIXTURES, 'execution-apis');
const GENESIS = readFileSync(join(FIXTURE, 'genesis.json'), 'utf8');
const N = 36;
const HEAD = 54;
const hex = (n: number) => `0x${n.toString(16)}`;
const tmp = tempDir('tracenode-follow-witness-');
let full: EthTestServer;
let upstream: string;
const sample = {} as StateSample;

/** Accounts of the chain (its genesis and every transaction's sender and recipient from N on) and the slots its blocks touched. */
async function chainSample(): Promise<StateSample> {
  const accounts = new Set(Object.keys(JSON.parse(GENESIS).alloc as object).map((a) => `0x${a.toLowerCase().replace(/^0x/, '')}`));
  const slots = new Map<string, Set<string>>();
  for (let n = N + 1; n <= HEAD; n++) {
    const trace = (await rawResult(upstream, 'debug_traceBlockByNumber', [hex(n), { tracer: 'prestateTracer' }])) as Array<{
      result: Record<string, { storage?: Record<string, string> }>;
    }>;
    for (const { result } of trace) {
      for (const [address, account] of Object.entries(result)) {
        accounts.add(address);
        for (const slot of Object.keys(account.storage ?? {})) (slots.get(address) ?? slots.set(address, new Set()).get(address)!).add(slot);
      }
    }
  }
  const withSlots = [...slots.keys()];
  return {
    accounts: [...accounts].slice(0, 40),
    slots: [...slots].flatMap(([a, s]) => [...s, `0x${'0'.repeat(63)}9`].map((slot): [string, string] => [a, slot])).slice(0, 40),
    proofs: [...withSlots.slice(0, 4), ...[...accounts].slice(4, 6)],
    calls: [readerCall([...accounts].slice(0, 6))],
  };
}

/** State keys the datadir holds: trie nodes and code, or code only (`s` ++ `c` ++ hash). */
async function stateKeys(p: PartialArchive, what: 'all' | 'code' = 'all'): Promise<number> {
  const keys = await p.chain.level.keys({ gte: Uint8Array.of(PREFIX.state), lt: Uint8Array.of(PREFIX.state + 1) }).all();
  return what === 'all' ? keys.length : keys.filter((k) => k.length === 34).length;
}

beforeAll(async () => {
  full = await startEthServer(FIXTURE);
  upstream = `${full.url}/v3/${full.key}`;
  Object.assign(sample, await chainSample());
}, 120_000);

afterAll(async () => {
  await full?.close();
  tmp.cleanup();
});

describe('a full tracenode as the upstream of an archive from block N', () => {
  let archive: PartialArchive;
  let proxy: RpcProxy;
  beforeAll(async () => {
    proxy = await startProxy(upstream);
    archive = await startPartialArchive(join(tmp.dir, 'witness'), proxy.url, { at: String(N), genesisText: GENESIS });
  }, 60_000);
  afterAll(async () => {
    await archive?.close();
    await proxy?.close();
  });

  it('executes 37..54 on their execution witnesses alone: one call a block, the metrics say so', async () => {
    await caughtUpTo(archive, HEAD);
    const status = archive.follower.status().stateFetch!;
    expect(status.source).toBe('witness');
    expect(status.blocks).toEqual({ witness: HEAD - N, prestate: 0, onMiss: 0 });
    expect(status.calls).toEqual({ witness: HEAD - N, prestate: 0, onMiss: 0 });
    expect(proxy.count('debug_executionWitness')).toBe(HEAD - N);
    expect(proxy.count('debug_traceBlockByNumber')).toBe(0);
    const metrics = await archive.metrics();
    expect(metrics).toContain(`tracenode_follow_state_blocks_total{network="mainnet",source="witness"} ${HEAD - N}`);
    expect(metrics).toContain(`tracenode_follow_state_requests_total{network="mainnet",source="witness"} ${HEAD - N}`);
    expect(archive.lines.filter((l) => l.includes('state of followed blocks'))).toEqual([expect.stringContaining('debug_executionWitness')]);
  });

  it('answers the state methods, eth_getProof and eth_call at every block from N as the full node does', async () => {
    let compared = 0;
    for (let n = N; n <= HEAD; n++) compared += await expectSameState(archive.url, upstream, hex(n), sample);
    expect(compared).toBeGreaterThan(1000);
  });

  it('eth_simulateV1 at N and at the head: the same blocks as the full node, state roots and hashes included', async () => {
    // A genesis account with three slots: one changed and one deleted (its trie collapses), then
    // its storage replaced; ETH sent to a fresh address and to it, over two blocks.
    const stored = '0x8bebc8ba651aee624937e7d897853ac30c95a067';
    const from = '0x0c2c51a0990aee1d73c1228de158688341557508';
    const slot = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
    const request = {
      blockStateCalls: [
        {
          stateOverrides: { [stored]: { stateDiff: { [slot(1)]: slot(5), [slot(2)]: slot(0) } } },
          calls: [{ from, to: '0x000000000000000000000000000000000000f4e5', value: '0x1' }],
        },
        { stateOverrides: { [stored]: { state: { [slot(9)]: slot(7) } } }, calls: [{ from, to: stored, value: '0x2' }] },
      ],
    };
    const fetches = async () => Number(/tracenode_remote_state_fetches_total\{network="mainnet",kind="proof"\} (\d+)/.exec(await archive.metrics())?.[1] ?? 0);
    const before = await fetches();
    for (const block of [hex(N), hex(HEAD)]) {
      const ours = (await rawResult(archive.url, 'eth_simulateV1', [request, block])) as Array<{ stateRoot: string; hash: string }>;
      const theirs = (await rawResult(upstream, 'eth_simulateV1', [request, block])) as Array<{ stateRoot: string; hash: string }>;
      expect(ours.map((b) => b.stateRoot)).toEqual(theirs.map((b) => b.stateRoot));
      expect(ours).toEqual(theirs);
    }
    // What no followed block touched was fetched (and checked) for the simulation's reads and roots.
    expect(await fetches()).toBeGreaterThan(before);
  });
});

describe('through a proxy without debug_executionWitness: the prestate source, collapsed branches', () => {
  let archive: PartialArchive;
  let proxy: RpcProxy;
  beforeAll(async () => {
    proxy = await startProxy(upstream);
    proxy.refuse.add('debug_executionWitness');
    archive = await startPartialArchive(join(tmp.dir, 'prestate'), proxy.url, { at: String(N), genesisText: GENESIS });
  }, 60_000);
  afterAll(async () => {
    await archive?.close();
    await proxy?.close();
  });

  it('executes the same blocks from prestate traces and batched proofs, and answers alike', async () => {
    await caughtUpTo(archive, HEAD);
    const status = archive.follower.status().stateFetch!;
    expect(status.source).toBe('prestate');
    expect(status.blocks.prestate).toBe(HEAD - N);
    console.log(`prestate source over execution-apis ${N + 1}..${HEAD}: ${JSON.stringify(status)}`);
    for (const n of [N + 1, 45, 50, HEAD]) await expectSameState(archive.url, upstream, hex(n), sample);
  });
});

describe('a lying upstream: nothing of it stored, logged once, following resumes when it stops', () => {
  let archive: PartialArchive;
  let proxy: RpcProxy;
  beforeAll(async () => {
    proxy = await startProxy(upstream);
  });
  afterAll(async () => {
    await archive?.close();
    await proxy?.close();
  });

  /**
   * Waits until the follower retries with `reason`, then checks that over a few more retries no
   * block was written and nothing of `what` (trie nodes and code, or code only: the proofs of a
   * block whose code lies are true) was stored, and that it said so once. (A block whose state
   * was all fetched before the lie began may still be written before the first refusal.)
   */
  async function refusedWith(reason: RegExp, what: 'all' | 'code' = 'all'): Promise<void> {
    await until(
      'refused',
      () => archive.follower.status().error ?? '',
      (e) => reason.test(e),
      10_000,
    );
    const held = await stateKeys(archive, what);
    const head = await archive.head();
    await quiet(600); // a few more retries, none of them writing
    expect(await archive.head()).toBe(head);
    expect(await stateKeys(archive, what)).toBe(held);
    expect(archive.lines.filter((l) => l.startsWith('warn upstream: retrying') && reason.test(l))).toHaveLength(1);
  }

  it('an altered witness entry is left out, and what it held fetched by proof: every root verifies', async () => {
    proxy.alter = (method, result) => {
      if (method !== 'debug_executionWitness') return undefined;
      const w = result as { state: string[] };
      return { ...w, state: w.state.map(flip) };
    };
    const proofsBefore = proxy.count('eth_getProof');
    archive = await startPartialArchive(join(tmp.dir, 'lying'), proxy.url, { at: String(N), genesisText: GENESIS });
    await caughtUpTo(archive, 40);
    // Every node altered: none hangs from the parent's root, none is stored; the blocks read their state by proof.
    expect(archive.lines.some((l) => /execution witnesses hold trie nodes that do not hang from the parent's state root \(block 37: \d+\)/.test(l))).toBe(true);
    expect(proxy.count('eth_getProof')).toBeGreaterThan(proofsBefore);
    proxy.alter = undefined;
    await archive.close();
  });

  it('a prestate source: an altered proof node, an altered code byte, then an altered storage value (never used)', async () => {
    proxy.refuse.add('debug_executionWitness');
    proxy.alter = (method, result) => {
      if (method !== 'eth_getProof') return undefined;
      const p = result as { accountProof: string[] };
      return { ...p, accountProof: [...p.accountProof.slice(0, -1), flip(p.accountProof.at(-1)!)] };
    };
    archive = await startPartialArchive(join(tmp.dir, 'lying'), proxy.url);
    await refusedWith(/block \d+ .*node \d+ of the upstream's account proof .* does not hang from the trusted state root/);
    // Code: an altered one in a prestate is not named by the parent's accounts (left out, fetched as
    // the block reads it), and an altered eth_getCode does not hash to the account's code hash.
    proxy.alter = (method, result) => {
      if (method === 'eth_getCode' && typeof result === 'string' && result.length > 2) return flip(result);
      if (method !== 'debug_traceBlockByNumber') return undefined;
      for (const { result: accounts } of result as Array<{ result: Record<string, { code?: string }> }>) {
        for (const a of Object.values(accounts)) if (a.code && a.code.length > 2) a.code = flip(a.code);
      }
      return result;
    };
    await refusedWith(/the upstream's code of 0x[0-9a-f]{40} does not hash to its code hash 0x[0-9a-f]{64}: not stored/, 'code');
    proxy.alter = (method, result) => {
      if (method !== 'eth_getProof') return undefined;
      const p = result as { storageProof: Array<{ value: string }> };
      return { ...p, storageProof: p.storageProof.map((s) => ({ ...s, value: '0x1234' })) };
    };
    await caughtUpTo(archive, 44);
    proxy.alter = undefined;
    await caughtUpTo(archive, HEAD);
    for (const n of [41, 44, HEAD]) await expectSameState(archive.url, upstream, hex(n), sample);
  });
});

describe('SIGKILL during a witness fetch and during a remote read', () => {
  let proxy: RpcProxy;
  const datadir = join(tmp.dir, 'killed');
  beforeAll(async () => {
    proxy = await startProxy(upstream);
  });
  afterAll(async () => proxy?.close());

  /**
   * `tracenode serve` on the datadir, following the proxy, SIGKILLed once the proxy has seen `nth`
   * more requests for `method` (answered late: the kill lands while one is in flight); `trigger`
   * gets the server's URL once it listens.
   */
  async function killDuring(method: string, nth: number, dir: string, trigger?: (url: string) => void): Promise<void> {
    const seen = proxy.count(method);
    const serve = await startServeCli(['--datadir', dir, '--port', '0', '--api-keys', 'k', '--log-level', 'warn', '--follow', proxy.url]);
    trigger?.(`${serve.base}/v3/k`);
    await proxy.reached(method, seen + nth);
    serve.child.kill('SIGKILL');
    await serve.exited;
    expect(serve.output()).not.toMatch(/following stopped|database corrupt/);
  }

  it('killed while a witness is in flight: the datadir opens, following resumes, answers are the full node’s', async () => {
    const init = await runCli(['init', '--datadir', datadir, '--from-node', proxy.url, '--at', String(N), '--genesis', join(FIXTURE, 'genesis.json')]);
    expect(init.code, init.stderr).toBe(0);
    proxy.delay.set('debug_executionWitness', 150);
    await killDuring('debug_executionWitness', 4, datadir);
    proxy.delay.clear();
    const archive = await startPartialArchive(datadir, proxy.url);
    try {
      const head = await archive.head();
      expect(head).toBeGreaterThanOrEqual(N);
      expect(head).toBeLessThan(HEAD);
      await caughtUpTo(archive, HEAD);
      for (const n of [head, HEAD]) await expectSameState(archive.url, upstream, hex(n), sample);
    } finally {
      await archive.close();
    }
  });

  it('killed while a read fetches a proof: the restart answers it as the full node', async () => {
    const fresh = join(tmp.dir, 'killed-read');
    const init = await runCli(['init', '--datadir', fresh, '--from-node', proxy.url, '--at', String(N), '--genesis', join(FIXTURE, 'genesis.json')]);
    expect(init.code, init.stderr).toBe(0);
    const [account] = sample.accounts;
    proxy.delay.set('eth_getProof', 300);
    await killDuring('eth_getProof', 1, fresh, (url) => void rawCall(url, 'eth_getBalance', [account, hex(N)]).catch(() => undefined));
    proxy.delay.clear();
    const archive = await startPartialArchive(fresh, proxy.url);
    try {
      expect((await rawCall(archive.url, 'eth_getBalance', [account, hex(N)])).result).toBe(await rawResult(upstream, 'eth_getBalance', [account, hex(N)]));
      await caughtUpTo(archive, HEAD);
      await expectSameState(archive.url, upstream, hex(HEAD), sample);
    } finally {
      await archive.close();
    }
  });
});
