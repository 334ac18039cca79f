import { bytesToHex } from '@ethereumjs/util';
import { beforeAll, describe, expect, it } from 'vitest';
import { opNextBaseFee } from '../../src/chain/op/baseFee.js';
import { DEPOSIT_TX_TYPE } from '../../src/chain/op/depositTx.js';
import { upgradeAt } from '../../src/chain/op/rollup.js';
import { orderedTrieRoot } from '../../src/codec/orderedTrieRoot.js';
import { l1FieldsFromInfo } from '../../src/execution/op/l1InfoFees.js';
import type { OpBlockResult } from '../../src/execution/op/opBlockRun.js';
import { calldataGas, headerRoots, runRoots } from '../helpers/opBlocks.js';
import { executeEcotoneBlock, loadKonaEcotoneBlocks, type OpEcotoneBlock } from '../helpers/opKonaEcotone.js';

/**
 * Six real OP Mainnet blocks of June 2024, under Ecotone (Canyon's receipts and base fee, Delta,
 * Ecotone's L1 data fee and Cancun's beacon root): kona's first executor fixtures
 * (fixtures/op-stack/kona-ecotone/). Each is run by tracenode's OP executor on its recorded
 * pre-state, as the importer runs a block, and must give its real header's state root, receipts
 * root, logs bloom and gas used.
 */

let blocks: OpEcotoneBlock[];
const results = new Map<bigint, OpBlockResult>();
beforeAll(async () => {
  blocks = loadKonaEcotoneBlocks().sort((a, b) => Number(a.number - b.number));
  for (const b of blocks) results.set(b.number, await executeEcotoneBlock(b));
}, 180_000);

describe('real OP Mainnet blocks under Ecotone', () => {
  it('the fixtures: six blocks, Ecotone by OP Mainnet’s known rules; each parent checked by hash, the transactions by their root', () => {
    expect(blocks.map((b) => [b.number, b.transactions.length, upgradeAt(b.rollup, b.block.header.timestamp)])).toEqual([
      [120794432n, 1, 'ecotone'],
      [121003241n, 10, 'ecotone'],
      [121049889n, 3, 'ecotone'],
      [121057303n, 4, 'ecotone'],
      [121065789n, 13, 'ecotone'],
      [121135704n, 18, 'ecotone'],
    ]);
    for (const b of blocks) {
      expect(bytesToHex(b.parent.hash())).toBe(bytesToHex(b.block.header.parentHash));
      expect(bytesToHex(orderedTrieRoot(b.transactions))).toBe(bytesToHex(b.block.header.transactionsTrie));
      // Canyon's base fee rule (denominator 250) from the parent.
      expect(opNextBaseFee(b.rollup, b.parent, b.block.header.timestamp)).toBe(b.block.header.baseFeePerGas);
    }
  });

  it('each run gives its real header’s state root, receipts root, logs bloom and gas used', () => {
    for (const b of blocks) {
      expect(runRoots(results.get(b.number)!), String(b.number)).toEqual(headerRoots(b.block.header));
    }
  });

  it('deposits carry their nonce and Canyon’s receipt version 1', () => {
    for (const b of blocks) {
      const deposits = results.get(b.number)!.receipts.filter((r) => r.type === DEPOSIT_TX_TYPE);
      expect(deposits.length).toBeGreaterThan(0);
      for (const d of deposits) expect([d.depositNonce !== undefined, d.depositReceiptVersion]).toEqual([true, 1n]);
    }
  });

  it('the L1 data fee by Ecotone’s rule: calldata gas × (16 × L1 base fee × base fee scalar + blob base fee × blob base fee scalar) / (16 × 10⁶), as derived from the L1-info deposit', () => {
    let charged = 0;
    for (const b of blocks) {
      const r = results.get(b.number)!;
      const fromInfo = l1FieldsFromInfo(b.rollup, b.block)!;
      for (const [i, receipt] of r.receipts.entries()) {
        if (receipt.type === DEPOSIT_TX_TYPE) continue;
        const { rules, gasUsed, fee, params } = receipt.l1!;
        const raw = b.transactions[i];
        const gas = calldataGas(raw);
        const weighted = 16n * params.l1BaseFee * params.baseFeeScalar + params.l1BlobBaseFee * params.blobBaseFeeScalar;
        expect([rules, gasUsed, fee]).toEqual(['ecotone', gas, (gas * weighted) / 16_000_000n]);
        expect(fromInfo[i]?.l1Fee).toEqual({ rules, fee, gasUsed, ...params });
        charged++;
      }
    }
    expect(charged).toBeGreaterThan(30);
  });
});
