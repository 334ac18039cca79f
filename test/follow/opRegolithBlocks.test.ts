import { bytesToHex } from '@ethereumjs/util';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEPOSIT_TX_TYPE } from '../../src/chain/op/depositTx.js';
import { type OpRollup, upgradeAt } from '../../src/chain/op/rollup.js';
import { encodeConsensusReceipt } from '../../src/chain/receipts.js';
import { bigIntToQuantity } from '../../src/codec/hex.js';
import { orderedTrieRoot } from '../../src/codec/orderedTrieRoot.js';
import { l1FieldsFromInfo } from '../../src/execution/op/l1InfoFees.js';
import type { OpBlockResult } from '../../src/execution/op/opBlockRun.js';
import { anchorReceipts } from '../../src/follow/anchorReceipts.js';
import type { Upstream } from '../../src/follow/upstream.js';
import { calldataGas, headerRoots, receiptsAsNodeJson, runRoots } from '../helpers/opBlocks.js';
import { executeCachedBlock, loadOpRpcCaches, type OpCachedBlock } from '../helpers/opRpcCaches.js';

/**
 * Real OP Mainnet blocks of August and September 2023, before Canyon: Regolith's rules, Bedrock's
 * L1 data fee (fixtures/op-stack/rpc-caches/, risc0/zeth's recorded answers). Each is run by
 * tracenode's OP executor on its parent's proven state, as the importer runs a block, and must give
 * its real header's state root, receipts root, logs bloom and gas used.
 */

let blocks: OpCachedBlock[];
const results = new Map<bigint, OpBlockResult>();
beforeAll(async () => {
  blocks = (await loadOpRpcCaches()).sort((a, b) => Number(a.number - b.number));
  for (const b of blocks) results.set(b.number, await executeCachedBlock(b));
}, 120_000);

describe('real OP Mainnet blocks before Canyon (Regolith)', () => {
  it('the fixtures: blocks 107,728,767 and 109,194,691, Regolith by OP Mainnet’s known rules, their headers hashed to their real hashes', () => {
    expect(blocks.map((b) => [b.number, bytesToHex(b.block.hash()), upgradeAt(b.rollup, b.block.header.timestamp)])).toEqual([
      [107728767n, '0x74ba2ecbd7e8d85998c32c446f1dc3616d994b40e23c3bc51344b650f959d31e', 'regolith'],
      [109194691n, '0xc2930ec5efb31e42b744851e2f816629968c0eae5740ddeedf7873988bac311f', 'regolith'],
    ]);
    for (const b of blocks) expect(b.block.header.timestamp).toBeLessThan(b.rollup.times.canyon!);
  });

  it('each run gives its real header’s state root, receipts root, logs bloom and gas used', () => {
    for (const b of blocks) {
      expect(runRoots(results.get(b.number)!), String(b.number)).toEqual(headerRoots(b.block.header));
    }
  });

  it('deposits carry Regolith’s nonce and no receipt version; the receipts root counts no nonce before Canyon (op-geth’s EncodeIndex)', () => {
    for (const b of blocks) {
      const r = results.get(b.number)!;
      const deposits = r.receipts.filter((x) => x.type === DEPOSIT_TX_TYPE);
      expect(deposits.length).toBeGreaterThan(0);
      for (const d of deposits) expect([d.depositNonce !== undefined, d.depositReceiptVersion]).toEqual([true, undefined]);
      // The binary form (debug_getRawReceipts) carries the nonce: a root of those bytes is not the header's.
      const encode = (use: 'root' | 'binary') =>
        orderedTrieRoot(r.receipts.map((x) => encodeConsensusReceipt({ ...x, statusOrRoot: Uint8Array.of(x.status) }, x.type, x.bloom, use)));
      expect(bytesToHex(encode('root'))).toBe(bytesToHex(b.block.header.receiptTrie));
      expect(bytesToHex(encode('binary'))).not.toBe(bytesToHex(b.block.header.receiptTrie));
    }
  });

  it('the L1 data fee by Regolith’s rule: (zero bytes × 4 + other bytes × 16 + overhead) × L1 base fee × scalar / 10⁶, as derived from the L1-info deposit', () => {
    for (const b of blocks) {
      const r = results.get(b.number)!;
      const fromInfo = l1FieldsFromInfo(b.rollup, b.block)!;
      let charged = 0;
      for (const [i, receipt] of r.receipts.entries()) {
        if (receipt.type === DEPOSIT_TX_TYPE) {
          expect(receipt.l1).toBeUndefined();
          continue;
        }
        const l1 = receipt.l1!;
        const raw = b.transactions[i];
        const gas = calldataGas(raw) + l1.params.overhead;
        expect([l1.rules, l1.gasUsed, l1.fee]).toEqual(['regolith', gas, (gas * l1.params.l1BaseFee * l1.params.scalar) / 1_000_000n]);
        expect(fromInfo[i]?.l1Fee).toEqual({ rules: l1.rules, fee: l1.fee, gasUsed: l1.gasUsed, ...l1.params });
        charged++;
      }
      expect(charged).toBeGreaterThan(5);
      // OP Mainnet's Bedrock parameters, from the blocks' L1-info deposits: overhead 188, scalar 0.684.
      const { overhead, scalar } = r.receipts.find((x) => x.l1 !== undefined)!.l1!.params;
      expect([overhead, scalar]).toEqual([188n, 684_000n]);
    }
  });

  it('by Bedrock’s deposit rules (no Regolith time) the blocks do not verify: the known chains schedule Regolith at genesis', async () => {
    const b = blocks[0];
    const rollup: OpRollup = { ...b.rollup, times: { ...b.rollup.times, regolith: undefined } };
    expect(upgradeAt(rollup, b.block.header.timestamp)).toBe('bedrock');
    const bedrock = await executeCachedBlock({ ...b, rollup });
    expect(bedrock.gasUsed).not.toBe(b.block.header.gasUsed);
  }, 60_000);

  it('as the first block of an archive from block N: the node’s receipts check against the real receiptsRoot; deposits’ nonces, in no root before Canyon, are derived from proofs at N', async () => {
    for (const b of blocks) {
      const r = results.get(b.number)!;
      const json = receiptsAsNodeJson(r.receipts);
      // The node: its receipts, and eth_getProof at block N (by hash) of each account the block touches, as recorded.
      const node = (receipts: unknown[]) =>
        ({
          call: async (method: string, params: unknown[]) => {
            if (method === 'eth_getBlockReceipts') return receipts;
            expect([method, params[1], params[2]]).toEqual(['eth_getProof', [], { blockHash: bytesToHex(b.block.hash()) }]);
            const proof = b.proofsAtBlock.get(String(params[0]));
            if (proof === undefined) throw new Error(`no recorded proof of ${String(params[0])}`);
            return { ...proof, storageProof: [] };
          },
        }) as unknown as Upstream;
      const stored = await anchorReceipts(node(json), b.block, b.rollup);
      expect(stored.map((s) => s.gasUsed)).toEqual(r.receipts.map((x) => x.gasUsed));
      expect(stored.map((s) => s.l1Fee?.fee)).toEqual(r.receipts.map((x) => x.l1?.fee));
      expect(stored.map((s) => s.depositNonce)).toEqual(r.receipts.map((x) => x.depositNonce));
      // A node that leaves the nonces out: derived all the same.
      const bare = json.map(({ depositNonce: _n, ...x }) => x);
      expect((await anchorReceipts(node(bare), b.block, b.rollup)).map((s) => s.depositNonce)).toEqual(r.receipts.map((x) => x.depositNonce));
      // A lying one is refused, though the receipts root cannot tell.
      const lying = json.map((x, i) => (i === 0 ? { ...x, depositNonce: bigIntToQuantity(BigInt(x.depositNonce as string) + 1n) } : x));
      await expect(anchorReceipts(node(lying), b.block, b.rollup)).rejects.toThrow(
        /names depositNonce \d+; its sender 0x[0-9a-f]{40}'s proven nonce gives \d+/,
      );
    }
  });
});
