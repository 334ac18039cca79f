import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Block } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EthereumChain } from '../../src/chain/open.js';
import { createEthContext, type EthContext } from '../../src/methods/context.js';
import { tracerOf } from '../../src/methods/trace/_shared.js';
import { traceMethods } from '../../src/methods/traceMethods.js';
import { reindexTraceAddresses } from '../../src/tracing/addressIndex.js';
import type { RpcTrace } from '../../src/tracing/parity.js';
import type { TraceService } from '../../src/tracing/replay.js';
import { FIXTURES, importFixtureChain, tempDir } from '../helpers/chains.js';
import { testConfig } from '../helpers/testConfig.js';

/**
 * The bundled demo chain (fixtures/demo, Solidity contracts, PoW with uncles then PoS up to
 * Cancun): facts its README states, checked through the trace methods.
 */
const DEMO_DIR = join(FIXTURES, 'demo');
const methods = Object.fromEntries(traceMethods.map((m) => [m.name, m]));
const q = (n: number) => `0x${n.toString(16)}`;

const MINER = '0x87003bcb29614fe6b630a515f662a1e530bfddfd';
const UNCLE_MINER_1 = '0x84c15fd9eafbcbb20b8d169f6618125b8e805c21';
const UNCLE_MINER_2 = '0x2a7104b68518c6b76dae30447770dbdf656070b9';
const UNCLE_MINER_3 = '0x53d2e7694557d81661c1cb1c087a47ef4f8f759b';
const RARE_1 = '0xf36998486188d345c7ebc7a132fda278bbea42dc';
const RARE_2 = '0xd28cc78d8381eb1e5a0b3a98509140ef213c401d';
const RARE_3 = '0x2670e7f29a48dbba530b6776e9a30c58509649ba';
const CALLER = '0xaebe15d4e0c8067718e929d21e11cb6bc4986283';
const CHILD2 = '0xd671d1e3be21691feaee7160d64040a612693e34';
const HEAD = 64;

describe.skipIf(!existsSync(join(DEMO_DIR, 'chain.rlp')))('traces on the bundled demo chain (fixtures/demo)', () => {
  const datadir = tempDir();
  let chain: EthereumChain;
  let ctx: EthContext;
  const byBlock = new Map<number, RpcTrace[]>();

  beforeAll(async () => {
    chain = await importFixtureChain(DEMO_DIR, datadir.dir);
    ctx = await createEthContext(chain, 'test', testConfig());
    await reindexTraceAddresses(chain, { tracer: tracerOf(ctx) });
    for (let n = 0; n <= HEAD; n++) byBlock.set(n, (await methods.trace_block.call(ctx, [q(n)])) as RpcTrace[]);
  });
  afterAll(async () => {
    await chain?.close();
    datadir.cleanup();
  });

  it('reward traces equal the README table (R = 3 ETH in blocks 1–3, 2 ETH in 4–19; none from the merge at 20)', () => {
    const rewards = (n: number) =>
      byBlock
        .get(n)!
        .filter((t) => t.type === 'reward')
        .map((t) => t.action);
    const block = (value: string) => ({ author: MINER, rewardType: 'block', value });
    const uncle = (author: string, value: string) => ({ author, rewardType: 'uncle', value });
    expect(rewards(1)).toEqual([block('0x29a2241af62c0000')]);
    expect(rewards(5)).toEqual([block('0x1bc16d674ec80000')]);
    expect(rewards(3)).toEqual([block('0x2aef353bcddd6000'), uncle(UNCLE_MINER_1, '0x246ddf9797668000')]);
    expect(rewards(7)).toEqual([block('0x1c9f78d2893e4000'), uncle(UNCLE_MINER_2, '0x18493fba64ef0000')]);
    expect(rewards(11)).toEqual([block('0x1d7d843dc3b48000'), uncle(UNCLE_MINER_1, '0x18493fba64ef0000'), uncle(UNCLE_MINER_3, '0x14d1120d7b160000')]);
    expect(rewards(15)).toEqual([block('0x1c9f78d2893e4000'), uncle(UNCLE_MINER_2, '0x1158e460913d0000')]);
    expect(rewards(18)).toEqual([block('0x1d7d843dc3b48000'), uncle(UNCLE_MINER_1, '0x18493fba64ef0000'), uncle(UNCLE_MINER_3, '0x18493fba64ef0000')]);
    for (let n = 1; n <= 19; n++) expect(rewards(n).length).toBeGreaterThan(0);
    for (let n = 20; n <= HEAD; n++) expect(rewards(n)).toEqual([]);
  });

  it('every transaction: root gas = gasLimit − intrinsic, error ⇔ failed receipt, receipt gas = intrinsic + gasUsed − refund', async () => {
    let failed = 0;
    for (let n = 1; n <= HEAD; n++) {
      const block = (await chain.store.blockByNumber(BigInt(n)))!;
      const receipts = (await chain.store.receipts(block.hash()))!;
      for (const [i, tx] of block.transactions.entries()) {
        const root = byBlock.get(n)!.find((t) => t.transactionPosition === i && t.traceAddress.length === 0)!;
        const intrinsic = tx.getIntrinsicGas();
        expect(BigInt((root.action as { gas: string }).gas)).toBe(tx.gasLimit - intrinsic);
        const isFailed = receipts[i].statusOrRoot.length === 1 && receipts[i].statusOrRoot[0] === 0;
        expect(root.error !== undefined, `block ${n} tx ${i}`).toBe(isFailed);
        if (isFailed) failed++;
        const used = root.result ? BigInt(root.result.gasUsed) : tx.gasLimit - intrinsic;
        const refund = intrinsic + used - receipts[i].gasUsed;
        // refunds are capped at 1/2 of the gas used before London (block 8), 1/5 from it
        expect(refund >= 0n && refund <= (intrinsic + used) / (n < 8 ? 2n : 5n), `block ${n} tx ${i}`).toBe(true);
      }
    }
    expect(failed).toBe(7);
  });

  it('SELFDESTRUCT before Cancun (block 17): a suicide child sending 0.25 ETH to rare-2', () => {
    const traces = byBlock.get(17)!;
    const suicide = traces.find((t) => t.type === 'suicide')!;
    expect(suicide.action).toEqual({ address: CHILD2, balance: '0x3782dace9d90000', refundAddress: RARE_2 });
    expect(suicide.traceAddress).toEqual([0]);
    expect(suicide.result).toBeNull();
  });

  it('trace_filter by the rare addresses of the README, index-driven', async () => {
    const asked: bigint[] = [];
    const inner = tracerOf(ctx);
    const counting: TraceService = {
      blockTraces: (block: Block) => {
        asked.push(block.header.number);
        return inner.blockTraces(block);
      },
      tracesByHash: async (hash: Uint8Array) => {
        const traces = await inner.tracesByHash(hash);
        if (traces) asked.push(traces.number);
        return traces;
      },
      cacheStats: () => inner.cacheStats(),
    };
    const counted: EthContext = { ...ctx, tracer: counting };
    const filter = async (f: Record<string, unknown>) =>
      (await methods.trace_filter.call(counted, [{ fromBlock: 'earliest', toBlock: 'latest', ...f }])) as RpcTrace[];

    // rare-2: only the beneficiary of block 17's SELFDESTRUCT
    expect((await filter({ toAddress: [RARE_2] })).map((t) => [t.blockNumber, t.type])).toEqual([[17, 'suicide']]);
    expect(asked).toEqual([17n]);
    expect(await filter({ fromAddress: [RARE_2] })).toEqual([]);
    // rare-3: only an internal CALL with 0.3 ETH from Caller in block 33
    const rare3 = await filter({ toAddress: [RARE_3] });
    expect(
      rare3.map((t) => [t.blockNumber, t.type, (t.action as { from: string }).from, (t.action as { value: string }).value, t.traceAddress.length > 0]),
    ).toEqual([[33, 'call', CALLER, '0x429d069189e0000', true]]);
    // rare-1: top-level transfers in blocks 3 and 40
    asked.length = 0;
    const rare1 = await filter({ toAddress: [RARE_1] });
    expect(rare1.map((t) => [t.blockNumber, t.traceAddress])).toEqual([
      [3, []],
      [40, []],
    ]);
    expect(asked).toEqual([3n, 40n]);
    // the uncle miners: only their uncle rewards
    expect((await filter({ toAddress: [UNCLE_MINER_3] })).map((t) => [t.blockNumber, t.type])).toEqual([
      [11, 'reward'],
      [18, 'reward'],
    ]);
    // same as the brute force over trace_block
    const all = [...byBlock.values()].flat();
    const toSide = (t: RpcTrace) => {
      const a = t.action as unknown as Record<string, string>;
      return t.type === 'suicide'
        ? a.refundAddress
        : t.type === 'reward'
          ? a.author
          : t.type === 'create'
            ? (t.result as { address?: string } | null)?.address
            : a.to;
    };
    expect(await filter({ toAddress: [CALLER, MINER] })).toEqual(all.filter((t) => [CALLER, MINER].includes(toSide(t) as string)));
  });

  it('every block hash on the traces is the canonical one', async () => {
    for (let n = 1; n <= HEAD; n++) {
      const hash = bytesToHex((await chain.store.canonicalHash(BigInt(n)))!);
      for (const t of byBlock.get(n)!) expect(t.blockHash).toBe(hash);
    }
  });
});
