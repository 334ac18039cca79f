import { join } from 'node:path';
import { bytesToHex } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EthereumChain } from '../../src/chain/open.js';
import { createEthContext, type EthContext } from '../../src/methods/context.js';
import { type EthereumApi, ethereumMethods } from '../../src/methods/ethereum.js';
import { FIXTURES, importFixtureChain, tempDir } from '../helpers/chains.js';
import { type AccountDiff, stateDiffSteps } from '../helpers/stateDiffSteps.js';
import { testConfig } from '../helpers/testConfig.js';
import { methodsOf } from '../helpers/typedClient.js';
import { buildDemoChain } from './demoChain.js';

/**
 * Ad-hoc tracing on the two local chains the trace tests use: the execution-apis chain (proof of
 * work with block and uncle rewards to block 35, then proof of stake with withdrawals) and the
 * hand-written London demo chain (every call kind, a SELFDESTRUCT that deletes its contract).
 * No peer serves these, so the stateDiffs are checked against the archive: for every block, each
 * account field and storage slot a transaction changed must chain from the value at block n-1,
 * transaction by transaction, to the value at block n less what the block did after its
 * transactions (rewards from trace_block, withdrawals from the block).
 */
interface Replayed {
  output: string;
  stateDiff: Record<string, AccountDiff> | null;
  trace: unknown[];
  vmTrace: null;
  transactionHash?: string;
}

const q = (n: bigint | number) => `0x${n.toString(16)}`;
const call = <N extends keyof EthereumApi>(ctx: EthContext, method: N, params: EthereumApi[N]['params']) =>
  methodsOf<EthereumApi, EthContext>(ethereumMethods, ctx).request(method, params);
/**
 * The EIP-7002 and EIP-7251 request contracts: a transaction queues a request in their storage,
 * and the block's closing system call takes it out again, so their value at block n is not the
 * last transaction's.
 */
const DRAINED_AFTER_TXS = new Set(['0x00000961ef480eb55e80d19ad83579a64c007002', '0x0000bbddc7ce488642fb579f8b00f3a590007251']);

/** Checks every block's diffs against the archive; returns the delta kinds met and the values checked. */
async function checkChained(ctx: EthContext, chain: EthereumChain, head: number): Promise<{ kinds: Set<string>; checked: number }> {
  const kinds = new Set<string>();
  let checked = 0;
  for (let n = 1; n <= head; n++) {
    const block = (await chain.store.blockByNumber(BigInt(n)))!;
    if (block.transactions.length === 0) continue;
    const entries = (await call(ctx, 'trace_replayBlockTransactions', [q(n), ['stateDiff']])) as Replayed[];
    expect(entries.map((e) => e.transactionHash)).toEqual(block.transactions.map((t) => bytesToHex(t.hash())));
    // what the block paid after its transactions: rewards (pre-merge), withdrawals (post-Shanghai)
    const after = new Map<string, bigint>();
    const credit = (address: string, wei: bigint) => after.set(address, (after.get(address) ?? 0n) + wei);
    for (const t of (await call(ctx, 'trace_block', [q(n)])) ?? []) {
      if (t.type === 'reward' && 'author' in t.action) credit(t.action.author, BigInt(t.action.value));
    }
    for (const w of block.withdrawals ?? []) credit(w.address.toString(), w.amount * 1_000_000_000n);

    const steps = stateDiffSteps(
      entries.map((e) => e.stateDiff),
      kinds,
    );
    for (const [key, list] of steps) {
      const [address, field, slot] = key.split(' ') as [string, string, string | undefined];
      const read = async (at: number) => {
        const b = q(at);
        if (field === 'balance') return BigInt(await call(ctx, 'eth_getBalance', [address, b]));
        if (field === 'nonce') return await call(ctx, 'eth_getTransactionCount', [address, b]);
        if (field === 'code') return await call(ctx, 'eth_getCode', [address, b]);
        return await call(ctx, 'eth_getStorageAt', [address, slot!, b]);
      };
      let pre = await read(n - 1);
      let post = await read(n);
      if (field === 'balance') {
        post = q((post as bigint) - (after.get(address) ?? 0n));
        pre = q(pre as bigint);
      }
      if (DRAINED_AFTER_TXS.has(address)) post = list.at(-1)?.[1] ?? pre;
      const told = [pre, ...list.flat(), post];
      const chained = [pre, ...list.flatMap(([, to], i) => [i === 0 ? pre : list[i - 1]![1], to]), list.at(-1)?.[1] ?? pre];
      expect(told, `${key} in block ${n}`).toEqual(chained);
      checked++;
    }
    // a transaction's own replay (replayed up to it) is its block entry: the first and the last
    for (const i of new Set([0, block.transactions.length - 1])) {
      const tx = block.transactions[i]!;
      const { transactionHash: _h, ...entry } = entries[i]!;
      expect(await call(ctx, 'trace_replayTransaction', [bytesToHex(tx.hash()), ['stateDiff']])).toEqual(entry);
    }
  }
  return { kinds, checked };
}

describe('ad-hoc tracing on the execution-apis chain', () => {
  const datadir = tempDir();
  let chain: EthereumChain;
  let ctx: EthContext;
  beforeAll(async () => {
    chain = await importFixtureChain(join(FIXTURES, 'execution-apis'), datadir.dir);
    ctx = await createEthContext(chain, 'test', testConfig());
  });
  afterAll(async () => {
    await ctx?.evm.close();
    await chain?.close();
    datadir.cleanup();
  });

  it('every block’s stateDiffs chain from the archive at n-1 to the archive at n (rewards and withdrawals aside)', async () => {
    const { kinds, checked } = await checkChained(ctx, chain, 54);
    expect(checked).toBeGreaterThan(100);
    expect([...kinds].sort()).toEqual(expect.arrayContaining(['balance*', 'code+', 'nonce*', 'storage*']));
  });
});

describe('trace_call limits: eth_call’s gas cap and deadline', () => {
  const datadir = tempDir();
  let chain: EthereumChain;
  let ctx: EthContext;
  beforeAll(async () => {
    chain = await importFixtureChain(join(FIXTURES, 'execution-apis'), datadir.dir);
    ctx = await createEthContext(chain, 'test', testConfig({ execution: { callTimeoutMs: 300 } }));
  });
  afterAll(async () => {
    await ctx?.evm.close();
    await chain?.close();
    datadir.cleanup();
  });
  const LOOP = { '0x00000000000000000000000000000000000000c0': { code: '0x5b600056' } }; // JUMPDEST PUSH1 0 JUMP

  it('a gas above the cap is lowered to it: the root frame gets 10 × the block gas limit − 21,000', async () => {
    const header = (await chain.store.headerByNumber(10n))!;
    const result = (await call(ctx, 'trace_call', [{ to: '0x00000000000000000000000000000000000000aa', gas: '0xffffffffffff' }, ['trace'], '0xa'])) as Replayed;
    expect((result.trace[0] as { action: { gas: string } }).action.gas).toBe(q(header.gasLimit * 10n - 21_000n));
  });

  it('a call past the deadline fails as eth_call does (CallTimeoutError → -32000 execution aborted)', async () => {
    await expect(call(ctx, 'trace_call', [{ to: '0x00000000000000000000000000000000000000c0' }, ['trace'], 'latest', LOOP])).rejects.toThrow(
      'execution aborted (timeout = 0.3s)',
    );
    await expect(call(ctx, 'eth_call', [{ to: '0x00000000000000000000000000000000000000c0' }, 'latest', LOOP])).rejects.toThrow(
      'execution aborted (timeout = 0.3s)',
    );
  });
});

describe('ad-hoc tracing on the demo chain (London: SELFDESTRUCT deletes)', () => {
  const fixture = tempDir();
  const datadir = tempDir();
  let chain: EthereumChain;
  let ctx: EthContext;
  beforeAll(async () => {
    await buildDemoChain(fixture.dir);
    chain = await importFixtureChain(fixture.dir, datadir.dir);
    ctx = await createEthContext(chain, 'test', testConfig());
  });
  afterAll(async () => {
    await ctx?.evm.close();
    await chain?.close();
    datadir.cleanup();
    fixture.cleanup();
  });

  it('every block’s stateDiffs chain from the archive; the self-destructed contract is all -', async () => {
    const head = Number((await chain.store.head())!.number);
    const { kinds, checked } = await checkChained(ctx, chain, head);
    expect(checked).toBeGreaterThan(20);
    expect([...kinds]).toEqual(expect.arrayContaining(['balance-', 'code-', 'nonce-']));
  });
});
