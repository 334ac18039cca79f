import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bigIntToBytes, bytesToHex, generateAddress } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EthereumChain } from '../../src/chain/open.js';
import { createEthContext, type EthContext } from '../../src/methods/context.js';
import { traceMethods } from '../../src/methods/traceMethods.js';
import type { RpcTrace } from '../../src/tracing/parity.js';
import { createTraceService } from '../../src/tracing/replay.js';
import { FIXTURES, importFixtureChain, tempDir } from '../helpers/chains.js';
import { testConfig } from '../helpers/testConfig.js';
import { wireError } from '../helpers/wireError.js';
import { buildDemoChain, DEMO, type DemoTx, FACTORY_CREATED, SENDER } from './demoChain.js';

const methods = Object.fromEntries(traceMethods.map((m) => [m.name, m]));
const call = (ctx: EthContext, name: string, params: unknown) => methods[name].call(ctx, params);
const traceBlock = async (ctx: EthContext, block: unknown) => (await call(ctx, 'trace_block', [block])) as RpcTrace[] | null;
const traceTx = async (ctx: EthContext, hash: string) => (await call(ctx, 'trace_transaction', [hash])) as RpcTrace[] | null;
const q = (n: bigint | number) => `0x${n.toString(16)}`;
const hex = (b: Uint8Array) => bytesToHex(b);

describe('traces on the execution-apis chain', () => {
  const datadir = tempDir();
  let chain: EthereumChain;
  let ctx: EthContext;
  const blocks = new Map<number, RpcTrace[]>();

  beforeAll(async () => {
    chain = await importFixtureChain(join(FIXTURES, 'execution-apis'), datadir.dir);
    ctx = await createEthContext(chain, 'test', testConfig());
  });
  afterAll(async () => {
    await chain?.close();
    datadir.cleanup();
  });

  it('trace_block runs for every block: transaction traces in order, then rewards (pre-merge only)', async () => {
    for (let n = 0; n <= 54; n++) {
      const traces = await traceBlock(ctx, q(n));
      expect(traces).not.toBeNull();
      blocks.set(n, traces as RpcTrace[]);
    }
    expect(blocks.get(0)).toEqual([]);
    let txCount = 0;
    for (let n = 1; n <= 54; n++) {
      const block = (await chain.store.blockByNumber(BigInt(n)))!;
      const traces = blocks.get(n)!;
      txCount += block.transactions.length;
      const rewards = traces.filter((t) => t.type === 'reward');
      expect(rewards.length).toBe(n <= 35 ? 1 + block.uncleHeaders.length : 0);
      // rewards come last; transaction positions never decrease
      const firstReward = traces.findIndex((t) => t.type === 'reward');
      if (firstReward >= 0) expect(traces.slice(firstReward).every((t) => t.type === 'reward')).toBe(true);
      const positions = traces.filter((t) => t.type !== 'reward').map((t) => t.transactionPosition as number);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      expect(new Set(positions).size).toBe(block.transactions.length);
      for (const t of traces) {
        expect(t.blockNumber).toBe(n);
        expect(t.blockHash).toBe(hex(block.hash()));
      }
    }
    expect(txCount).toBe(249);
  });

  it('contract creation (block 1, tx 0): exact trace, checked by hand', async () => {
    // The init code `600d380380600d6000396000f3` copies the code after its 13 bytes to memory and
    // returns it: 35 gas of execution (PUSH1 3, CODESIZE 2, SUB 3, DUP1 3, PUSH1 3, PUSH1 3,
    // CODECOPY 3+3·2 words+6 memory, PUSH1 3, RETURN 0) + 200·47 bytes of code deposit = 9435.
    // Root gas 23644 = gasLimit 80468 − intrinsic 56824, which the debug_traceTransaction fixture
    // shows as the first step's gas; receipt 66259 = 56824 + 9435.
    const hash = '0xc1d605c6612a5fe84dc95810030bfe5b1d327652b381bc695e28f50d13b2b09e';
    const io = readFileSync(join(FIXTURES, 'execution-apis/debug_traceTransaction/trace-contract-call.io'), 'utf8');
    expect(io).toContain('"gas":66259');
    expect(io).toContain('"structLogs":[{"pc":0,"op":"PUSH1","gas":23644');
    const block = (await chain.store.blockByNumber(1n))!;
    const tx = block.transactions[0];
    expect(hex(tx.hash())).toBe(hash);
    const init = hex(tx.data);
    expect(await traceTx(ctx, hash)).toEqual([
      {
        action: { from: '0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f', gas: q(23644), init, value: '0x0', creationMethod: 'create' },
        blockHash: hex(block.hash()),
        blockNumber: 1,
        result: {
          address: hex(generateAddress(tx.getSenderAddress().bytes, bigIntToBytes(tx.nonce))),
          code: `0x${init.slice(2 + 26)}`,
          gasUsed: q(35 + 200 * 47),
        },
        subtraces: 0,
        traceAddress: [],
        transactionHash: hash,
        transactionPosition: 0,
        type: 'create',
      },
    ]);
  });

  it('plain transfer (block 3, tx 0): gas 0, gasUsed 0, output 0x', async () => {
    const hash = '0x3fbac8b19b59077cd29bbacc3815d73577b45a4d976cae80b04c98c793684c07';
    const block = (await chain.store.blockByNumber(3n))!;
    expect(await traceTx(ctx, hash)).toEqual([
      {
        action: {
          from: '0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f',
          callType: 'call',
          gas: '0x0',
          input: '0x',
          to: '0xc7b99a164efd027a93f147376cc7da7c67c6bbe0',
          value: '0x1',
        },
        blockHash: hex(block.hash()),
        blockNumber: 3,
        result: { gasUsed: '0x0', output: '0x' },
        subtraces: 0,
        traceAddress: [],
        transactionHash: hash,
        transactionPosition: 0,
        type: 'call',
      },
    ]);
  });

  it('failed root frame (block 50, tx 2): value call with 0 gas into code → Out of gas, result null, receipt status 0', async () => {
    const hash = '0x953f6f94d63f5b26077ba66eec300c029d783aea61da6971965d40fbd1ef22d6';
    const block = (await chain.store.blockByNumber(50n))!;
    const receipts = (await chain.store.receipts(block.hash()))!;
    expect([...receipts[2].statusOrRoot]).toEqual([0]);
    expect(await traceTx(ctx, hash)).toEqual([
      {
        action: {
          from: '0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f',
          callType: 'call',
          gas: '0x0',
          input: '0x',
          to: '0xeda8645ba6948855e3b3cd596bbb07596d59c603',
          value: '0x1',
        },
        blockHash: hex(block.hash()),
        blockNumber: 50,
        error: 'Out of gas',
        result: null,
        subtraces: 0,
        traceAddress: [],
        transactionHash: hash,
        transactionPosition: 2,
        type: 'call',
      },
    ]);
  });

  it('every transaction: root gas, status, receipt gas relation, created address; trace_transaction = its slice of trace_block', async () => {
    let refunded = 0;
    for (let n = 1; n <= 54; n++) {
      const block = (await chain.store.blockByNumber(BigInt(n)))!;
      const receipts = (await chain.store.receipts(block.hash()))!;
      const traces = blocks.get(n) ?? ((await traceBlock(ctx, q(n))) as RpcTrace[]);
      for (const [i, tx] of block.transactions.entries()) {
        const own = traces.filter((t) => t.transactionPosition === i);
        expect(await traceTx(ctx, hex(tx.hash()))).toEqual(own);
        const root = own[0];
        expect(root.traceAddress).toEqual([]);
        expect(root.transactionHash).toBe(hex(tx.hash()));
        const intrinsic = tx.getIntrinsicGas();
        expect(BigInt((root.action as { gas: string }).gas)).toBe(tx.gasLimit - intrinsic);
        const receipt = receipts[i];
        const failed = receipt.statusOrRoot.length === 1 && receipt.statusOrRoot[0] === 0;
        expect(root.error !== undefined).toBe(failed);
        // receipt.gasUsed = intrinsic + root.gasUsed − refund, refund ≤ 1/5 (London) of the total
        const used = root.result ? BigInt(root.result.gasUsed) : tx.gasLimit - intrinsic;
        const refund = intrinsic + used - receipt.gasUsed;
        expect(refund >= 0n && refund <= (intrinsic + used) / 5n).toBe(true);
        if (refund > 0n) refunded++;
        if (root.type === 'create' && root.result) {
          expect((root.result as { address: string }).address).toBe(hex(receipt.contractAddress!));
        }
      }
    }
    // Only the EIP-7702 transaction of block 45 is refunded (an authorization for an existing account).
    expect(refunded).toBe(1);
  });

  it('trace_transaction: unknown hash → null; bad hash → -32602', async () => {
    expect(await traceTx(ctx, `0x${'00'.repeat(31)}01`)).toBeNull();
    expect((await wireError(call(ctx, 'trace_transaction', ['0x1234']))).code).toBe(-32602);
    expect((await wireError(call(ctx, 'trace_transaction', []))).code).toBe(-32602);
  });

  it('trace_block: genesis and earliest → [], latest/pending → head, beyond head → null', async () => {
    expect(await traceBlock(ctx, '0x0')).toEqual([]);
    expect(await traceBlock(ctx, 'earliest')).toEqual([]);
    const head = await traceBlock(ctx, '0x36');
    expect(head).not.toBeNull();
    expect(await traceBlock(ctx, 'latest')).toEqual(head);
    expect(await traceBlock(ctx, 'pending')).toEqual(head);
    expect(await traceBlock(ctx, '0x37')).toBeNull();
    expect(await traceBlock(ctx, '0xffffffff')).toBeNull();
  });

  it('trace_block: other tags, hashes and garbage → -32602', async () => {
    const head = (await chain.store.head())!;
    for (const bad of ['safe', 'finalized', hex(head.hash), { blockHash: hex(head.hash) }, '0x01', 'head', 7, null]) {
      const err = await wireError(call(ctx, 'trace_block', [bad]));
      expect(err.code, JSON.stringify(bad)).toBe(-32602);
    }
    expect((await wireError(call(ctx, 'trace_block', ['safe']))).message).toMatch(/^invalid argument 0: unsupported block tag "safe"/);
  });
});

describe('traces on a hand-written demo chain (nested frames)', () => {
  const fixture = tempDir();
  const datadir = tempDir();
  let chain: EthereumChain;
  let ctx: EthContext;
  let txs: DemoTx[];
  const a = (b: Uint8Array) => hex(b);

  beforeAll(async () => {
    txs = await buildDemoChain(fixture.dir);
    chain = await importFixtureChain(fixture.dir, datadir.dir);
    ctx = await createEthContext(chain, 'test', testConfig());
  });
  afterAll(async () => {
    await chain?.close();
    datadir.cleanup();
    fixture.cleanup();
  });

  const tracesOf = async (name: string) => {
    const entry = txs.find((t) => t.name === name)!;
    const traces = (await traceTx(ctx, hex(entry.tx.hash()))) as RpcTrace[];
    const block = (await chain.store.blockByNumber(BigInt(entry.block)))!;
    const index = block.transactions.findIndex((t) => hex(t.hash()) === hex(entry.tx.hash()));
    const receipt = (await chain.store.receipts(block.hash()))![index];
    // Strip the envelope, checked once below.
    for (const t of traces) {
      expect(t.blockNumber).toBe(entry.block);
      expect(t.blockHash).toBe(hex(block.hash()));
      expect(t.transactionHash).toBe(hex(entry.tx.hash()));
      expect(t.transactionPosition).toBe(index);
    }
    const bare = traces.map(({ blockHash: _h, blockNumber: _n, transactionHash: _t, transactionPosition: _p, ...rest }) => rest);
    return { bare, receipt, tx: entry.tx };
  };

  const callAction = (from: Uint8Array, to: Uint8Array, callType: string, gas: number | bigint, value = 0, input = '0x') => ({
    from: a(from),
    callType,
    gas: q(gas),
    input,
    to: a(to),
    value: q(value),
  });
  const ok = (gasUsed: number | bigint, output = '0x') => ({ gasUsed: q(gasUsed), output });
  const word42 = `0x${'00'.repeat(31)}2a`;
  const zeroWord = `0x${'00'.repeat(32)}`;

  it('router: every call kind, omitted zero-value precompile call, revert and OOG at depth, SELFDESTRUCT, CREATE/CREATE2', async () => {
    const { bare, receipt, tx } = await tracesOf('router');
    const rootUsed = receipt.gasUsed - 21000n; // no calldata, no refund (London, no storage cleared)
    // Factory frame (gas 200000): before CREATE it spends 12 (PUSH10, PUSH1, MSTORE + 1 word) + 9
    // (3 PUSH1) + 32000 → L = 167979, the child gets L − ⌊L/64⌋ = 165355 and uses 18 + 200 = 218.
    // Then POP 2 + 4 PUSH1 12 + CREATE2 32000 + 6 (hash of one word) → L2 = 135741 → 133621.
    // Then POP 2 + PUSH5 PUSH1 MSTORE 9 + 3 PUSH1 9 + 32000 → L3 = 103503 → 101886; it reverts
    // after 6 gas. POP 2 → the factory used 200000 − (103503 − 6 − 2) = 96505.
    expect(bare).toEqual([
      { action: callAction(SENDER, DEMO.router, 'call', tx.gasLimit - 21000n, 5), result: ok(rootUsed), subtraces: 11, traceAddress: [], type: 'call' },
      // RET42 returns one word: PUSH1, PUSH1, MSTORE (3 + 3 memory), PUSH1, PUSH1, RETURN = 18 gas
      { action: callAction(DEMO.router, DEMO.ret42, 'call', 10_000), result: ok(18, word42), subtraces: 0, traceAddress: [0], type: 'call' },
      { action: callAction(DEMO.router, DEMO.ret42, 'staticcall', 10_000), result: ok(18, word42), subtraces: 0, traceAddress: [1], type: 'call' },
      // DELEGATECALL reports the delegating frame's value (5); the library is a bare STOP.
      { action: callAction(DEMO.router, DEMO.lib, 'delegatecall', 10_000, 5), result: ok(0), subtraces: 0, traceAddress: [2], type: 'call' },
      // value-carrying calls get the 2300 stipend on top of the requested gas
      { action: callAction(DEMO.router, DEMO.lib, 'callcode', 12_300, 1), result: ok(0), subtraces: 0, traceAddress: [3], type: 'call' },
      // identity precompile: 15 + 3 per word; the zero-value STATICCALL to it before is omitted
      { action: callAction(DEMO.router, DEMO.identity, 'call', 12_300, 1, zeroWord), result: ok(18, zeroWord), subtraces: 0, traceAddress: [4], type: 'call' },
      // nester: 6 PUSH = 18, STATICCALL to warm RET42 100, callee 18, POP 2 = 138
      { action: callAction(DEMO.router, DEMO.nester, 'call', 20_000), result: ok(138), subtraces: 1, traceAddress: [5], type: 'call' },
      { action: callAction(DEMO.nester, DEMO.ret42, 'staticcall', 5_000), result: ok(18, word42), subtraces: 0, traceAddress: [5, 0], type: 'call' },
      // REVERT keeps the result: 18 gas, revert data 0xdead
      {
        action: callAction(DEMO.router, DEMO.reverter, 'call', 10_000),
        error: 'Reverted',
        result: ok(18, '0xdead'),
        subtraces: 0,
        traceAddress: [6],
        type: 'call',
      },
      { action: callAction(DEMO.router, DEMO.looper, 'call', 5_000), error: 'Out of gas', result: null, subtraces: 0, traceAddress: [7], type: 'call' },
      // PUSH20 3 + SELFDESTRUCT 5000 + cold beneficiary 2600 = 7603; the suicide is its child
      { action: callAction(DEMO.router, DEMO.suicide, 'call', 10_000), result: ok(7603), subtraces: 1, traceAddress: [8], type: 'call' },
      {
        action: { address: a(DEMO.suicide), balance: q(DEMO.suicideBalance), refundAddress: a(DEMO.beneficiary) },
        result: null,
        subtraces: 0,
        traceAddress: [8, 0],
        type: 'suicide',
      },
      { action: callAction(DEMO.router, DEMO.eoa, 'call', 2_300, 1), result: ok(0), subtraces: 0, traceAddress: [9], type: 'call' },
      { action: callAction(DEMO.router, DEMO.factory, 'call', 200_000), result: ok(96_505), subtraces: 3, traceAddress: [10], type: 'call' },
      {
        action: { from: a(DEMO.factory), gas: q(165_355), init: a(DEMO.init), value: '0x0', creationMethod: 'create' },
        result: { address: a(FACTORY_CREATED.create), code: '0x00', gasUsed: q(218) },
        subtraces: 0,
        traceAddress: [10, 0],
        type: 'create',
      },
      {
        action: { from: a(DEMO.factory), gas: q(133_621), init: a(DEMO.init), value: '0x0', creationMethod: 'create2' },
        result: { address: a(FACTORY_CREATED.create2), code: '0x00', gasUsed: q(218) },
        subtraces: 0,
        traceAddress: [10, 1],
        type: 'create',
      },
      {
        action: { from: a(DEMO.factory), gas: q(101_886), init: a(DEMO.revertingInit), value: '0x0', creationMethod: 'create' },
        error: 'Reverted',
        result: { address: a(FACTORY_CREATED.reverted), code: '0x', gasUsed: q(6) },
        subtraces: 0,
        traceAddress: [10, 2],
        type: 'create',
      },
    ]);
    expect(rootUsed > 0n).toBe(true);
  });

  it('failed roots: bad jump (all gas used), INVALID after a successful sub-call (child kept)', async () => {
    const badJump = await tracesOf('badJump');
    expect(badJump.receipt.gasUsed).toBe(50_000n);
    expect(badJump.bare).toEqual([
      { action: callAction(SENDER, DEMO.badJump, 'call', 29_000), error: 'Bad jump destination', result: null, subtraces: 0, traceAddress: [], type: 'call' },
    ]);
    const failer = await tracesOf('failer');
    expect(failer.receipt.gasUsed).toBe(60_000n);
    expect(failer.bare).toEqual([
      { action: callAction(SENDER, DEMO.failer, 'call', 39_000), error: 'Bad instruction', result: null, subtraces: 1, traceAddress: [], type: 'call' },
      { action: callAction(DEMO.failer, DEMO.ret42, 'call', 10_000), result: ok(18, word42), subtraces: 0, traceAddress: [0], type: 'call' },
    ]);
  });

  it('transfer, creation transactions (one reverting), and a call to the self-destructed contract', async () => {
    const transfer = await tracesOf('transfer');
    expect(transfer.bare).toEqual([{ action: callAction(SENDER, DEMO.eoa, 'call', 0, 7), result: ok(0), subtraces: 0, traceAddress: [], type: 'call' }]);

    // intrinsic 53000 + 16 per non-zero / 4 per zero data byte: init has 7 non-zero, 3 zero → 53124
    const create = await tracesOf('create');
    const created = generateAddress(SENDER, bigIntToBytes(create.tx.nonce));
    expect(create.receipt.gasUsed).toBe(53_124n + 218n);
    expect(create.bare).toEqual([
      {
        action: { from: a(SENDER), gas: q(100_000 - 53_124), init: a(DEMO.init), value: '0x0', creationMethod: 'create' },
        result: { address: a(created), code: '0x00', gasUsed: q(218) },
        subtraces: 0,
        traceAddress: [],
        type: 'create',
      },
    ]);
    // 3 non-zero, 2 zero bytes → 53056; reverts after PUSH1 PUSH1 REVERT = 6 gas
    const reverts = await tracesOf('createReverts');
    expect(reverts.receipt.gasUsed).toBe(53_056n + 6n);
    expect(reverts.bare).toEqual([
      {
        action: { from: a(SENDER), gas: q(100_000 - 53_056), init: a(DEMO.revertingInit), value: '0x0', creationMethod: 'create' },
        error: 'Reverted',
        result: { address: a(generateAddress(SENDER, bigIntToBytes(reverts.tx.nonce))), code: '0x', gasUsed: q(6) },
        subtraces: 0,
        traceAddress: [],
        type: 'create',
      },
    ]);
    // the contract self-destructed in block 1: now an empty account, so nothing runs
    const destroyed = await tracesOf('callDestroyed');
    expect(destroyed.bare).toEqual([
      { action: callAction(SENDER, DEMO.suicide, 'call', 30_000 - 21_016, 0, '0xab'), result: ok(0), subtraces: 0, traceAddress: [], type: 'call' },
    ]);
  });

  it('trace_block: transactions then the 2 ETH block reward; an empty block has only the reward', async () => {
    const reward = (n: number) => ({ author: a(DEMO.miner), rewardType: 'block', value: q(2n * 10n ** 18n), n });
    for (const n of [1, 2, 3, 4]) {
      const traces = (await traceBlock(ctx, q(n)))!;
      const last = traces[traces.length - 1];
      expect({ ...last.action, n: last.blockNumber }).toEqual(reward(n));
      expect(traces.filter((t) => t.type === 'reward')).toHaveLength(1);
      const expectedTx = txs.filter((t) => t.block === n).length;
      expect(new Set(traces.filter((t) => t.type !== 'reward').map((t) => t.transactionPosition)).size).toBe(expectedTx);
    }
    expect(await traceBlock(ctx, '0x3')).toHaveLength(1);
  });

  it('trace service: concurrent requests for one block share a replay; the cache is bounded by bytes', async () => {
    const block1 = (await chain.store.blockByNumber(1n))!;
    const block2 = (await chain.store.blockByNumber(2n))!;
    const tracer = createTraceService(chain, { stateDb: ctx.state.db, settings: testConfig().tracing });
    const [x, y] = await Promise.all([tracer.blockTraces(block1), tracer.tracesByHash(block1.hash())]);
    expect(x).toBe(y);
    expect(tracer.cacheStats().blocks).toBe(1);
    expect(await tracer.tracesByHash(block1.hash())).toBe(x); // a hit: the same object, no replay
    expect(await tracer.tracesByHash(new Uint8Array(32))).toBeUndefined();
    // room for one block only: tracing another evicts the first
    const small = createTraceService(chain, {
      stateDb: ctx.state.db,
      settings: testConfig({ tracing: { cacheBytes: tracer.cacheStats().bytes + 100 } }).tracing,
    });
    const first = await small.blockTraces(block1);
    await small.blockTraces(block2);
    expect(small.cacheStats().blocks).toBe(1);
    const again = await small.blockTraces(block1);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });

  it('replays write nothing to the database', async () => {
    const count = async () => {
      let n = 0;
      for await (const _ of chain.level.keys()) n++;
      return n;
    };
    const before = await count();
    // a fresh service, so the blocks are replayed rather than served from the cache
    const tracer = createTraceService(chain, { stateDb: ctx.state.db, settings: testConfig().tracing });
    for (const n of [1n, 2n, 4n]) await tracer.blockTraces((await chain.store.blockByNumber(n))!);
    expect(await count()).toBe(before);
  });
});
