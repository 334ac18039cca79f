import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex, concatBytes } from '@ethereumjs/util';
import { afterAll, describe, expect, it } from 'vitest';
import type { EthereumChain } from '../../src/chain/open.js';
import { splitRlpItems } from '../../src/import/rlpFile.js';
import { createEthContext } from '../../src/methods/context.js';
import { traceMethods } from '../../src/methods/traceMethods.js';
import type { RpcTrace } from '../../src/tracing/parity.js';
import { FIXTURES, importFixtureChain, tempDir } from '../helpers/chains.js';
import { testConfig } from '../helpers/testConfig.js';

const traceBlock = traceMethods.find((m) => m.name === 'trace_block')!;
const UNCLE_CHAINS = join(FIXTURES, 'uncle-chains');
const ETH = 10n ** 18n;
const LAST = 40;
const q = (n: bigint | number) => `0x${n.toString(16)}`;

interface ExpectedChain {
  blocks: Array<{
    number: string;
    hash: string;
    transactionCount: number;
    rewardTraces: Array<{ author: string; rewardType: string; value: string }>;
  }>;
}

/** A reward trace as trace_block must print it (docs/methods.md#traces). */
function rewardTrace(action: { author: string; rewardType: string; value: string }, blockNumber: number, blockHash: string): RpcTrace {
  return {
    action: { author: action.author, rewardType: action.rewardType as 'block' | 'uncle', value: action.value },
    blockHash,
    blockNumber,
    result: null,
    subtraces: 0,
    traceAddress: [],
    transactionHash: null,
    transactionPosition: null,
    type: 'reward',
  };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

async function open(fixture: string): Promise<EthereumChain> {
  const datadir = tempDir();
  const chain = await importFixtureChain(fixture, datadir.dir);
  cleanups.push(async () => {
    await chain.close();
    datadir.cleanup();
  });
  return chain;
}

describe('trace_block rewards', () => {
  for (const name of readdirSync(UNCLE_CHAINS).filter((n) => !n.includes('.'))) {
    it(`uncle chain ${name}: every block's reward traces equal expected.json, after the transactions`, async () => {
      const dir = join(UNCLE_CHAINS, name);
      const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as ExpectedChain;
      const chain = await open(dir);
      const ctx = await createEthContext(chain, 'test', testConfig());
      expect(await traceBlock.call(ctx, ['0x0'])).toEqual([]);
      for (const block of expected.blocks) {
        const number = Number(block.number);
        const traces = (await traceBlock.call(ctx, [block.number])) as RpcTrace[];
        const rewards = traces.filter((t) => t.type === 'reward');
        expect(rewards).toEqual(block.rewardTraces.map((r) => rewardTrace(r, number, block.hash)));
        expect(traces.slice(traces.length - rewards.length)).toEqual(rewards);
        expect(new Set(traces.filter((t) => t.type !== 'reward').map((t) => t.transactionHash)).size).toBe(block.transactionCount);
      }
    });
  }

  it('execution-apis chain: blocks 1–35 (PoW) carry hand-computed rewards, 36–40 (PoS) none', async () => {
    // The first 40 blocks are enough (the merge is at 36); the rest only costs import time.
    const fixture = tempDir();
    cleanups.push(fixture.cleanup);
    const source = join(FIXTURES, 'execution-apis');
    copyFileSync(join(source, 'genesis.json'), join(fixture.dir, 'genesis.json'));
    writeFileSync(join(fixture.dir, 'chain.rlp'), concatBytes(...splitRlpItems(readFileSync(join(source, 'chain.rlp'))).slice(0, LAST)));
    const chain = await open(fixture.dir);
    const ctx = await createEthContext(chain, 'test', testConfig());
    // Fork schedule from the fixture's README: byzantium 9 (3 ETH), constantinople 12 (2 ETH), merge 36.
    const base = (n: number) => (n < 9 ? 5n : n < 12 ? 3n : 2n) * ETH;
    const withUncles: number[] = [];
    expect((await chain.store.head())?.number).toBe(BigInt(LAST));
    for (let n = 1; n <= LAST; n++) {
      const block = (await chain.store.blockByNumber(BigInt(n)))!;
      const hash = bytesToHex(block.hash());
      const traces = (await traceBlock.call(ctx, [q(n)])) as RpcTrace[];
      const rewards = traces.filter((t) => t.type === 'reward');
      if (n >= 36) {
        expect(rewards).toEqual([]);
        continue;
      }
      const r = base(n);
      const uncles = block.uncleHeaders;
      if (uncles.length > 0) withUncles.push(n);
      expect(rewards).toEqual([
        rewardTrace({ author: bytesToHex(block.header.coinbase.bytes), rewardType: 'block', value: q(r + (r / 32n) * BigInt(uncles.length)) }, n, hash),
        ...uncles.map((u) =>
          rewardTrace({ author: bytesToHex(u.coinbase.bytes), rewardType: 'uncle', value: q(((u.number + 8n - BigInt(n)) * r) / 8n) }, n, hash),
        ),
      ]);
      expect(traces.slice(traces.length - rewards.length)).toEqual(rewards);
    }
    expect(withUncles).toEqual([3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19, 21, 22, 25, 29, 32, 34]);
  });
});
