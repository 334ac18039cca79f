import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { beforeAll, describe, expect, it } from 'vitest';
import { opNextBaseFee } from '../../src/chain/op/baseFee.js';
import { DEPOSIT_TX_TYPE } from '../../src/chain/op/depositTx.js';
import { decodeL1Info } from '../../src/chain/op/l1Info.js';
import { DepositTransaction } from '../../src/chain/op/opBlock.js';
import { rollupFromConfig, upgradeAt } from '../../src/chain/op/rollup.js';
import { bigIntToQuantity } from '../../src/codec/hex.js';
import { keccak256 } from '../../src/codec/keccak.js';
import { orderedTrieRoot } from '../../src/codec/orderedTrieRoot.js';
import { fjordEstimatedSize } from '../../src/execution/op/l1Cost.js';
import { l1FieldsFromInfo } from '../../src/execution/op/l1InfoFees.js';
import type { OpBlockResult } from '../../src/execution/op/opBlockRun.js';
import { anchorReceipts } from '../../src/follow/anchorReceipts.js';
import type { Upstream } from '../../src/follow/upstream.js';
import { formatBlockReceipts } from '../../src/methods/eth/_shared/formatReceipt.js';
import { headerRoots, receiptsAsNodeJson, runRoots } from '../helpers/opBlocks.js';
import { executeWitnessBlock, loadBaseSepoliaBlock, type OpWitnessBlock } from '../helpers/opWitnessBlocks.js';

/**
 * A real Base Sepolia block of February 2026, under Jovian (fixtures/op-stack/witnesses/,
 * op-enclave's fixture): run by tracenode's OP executor on its execution witness, as the importer
 * runs a block, it must give the real header's state root, receipts root, logs bloom, gas used and
 * Isthmus' withdrawals root. The header's Jovian DA footprint (blobGasUsed) is not in the fixture;
 * the parent's is (its header is checked by hash), and tracenode's footprint of the parent's real
 * transactions must equal it.
 */

let b: OpWitnessBlock;
let result: OpBlockResult;
beforeAll(async () => {
  b = loadBaseSepoliaBlock();
  result = await executeWitnessBlock(b);
}, 120_000);

/** Jovian's DA footprint of a block's transactions: each signed one's Fjord size estimate × the scalar its L1-info deposit sets. */
function footprint(transactions: Uint8Array[]): bigint {
  const scalar = decodeL1Info(new DepositTransaction(transactions[0]).data)!.daFootprintGasScalar!;
  let sum = 0n;
  for (const raw of transactions) if (raw[0] !== DEPOSIT_TX_TYPE) sum += (fjordEstimatedSize(raw) / 1_000_000n) * scalar;
  return sum;
}

describe('a real Base Sepolia block after Jovian, on its execution witness', () => {
  it('the fixture: block 37,312,300, Jovian by Base Sepolia’s known rules (the fixture’s rollup config agrees); parent and transactions checked by hash and root', () => {
    expect([b.block.header.number, upgradeAt(b.rollup, b.block.header.timestamp)]).toEqual([37312300n, 'jovian']);
    const theirs = rollupFromConfig({ ...b.fixture.rollupConfig, l2_chain_id: 84532 });
    for (const [upgrade, at] of Object.entries(theirs.times)) expect(b.rollup.times[upgrade as keyof typeof theirs.times], upgrade).toBe(at);
    expect(b.rollup.eip1559).toEqual(theirs.eip1559);
    expect(bytesToHex(b.parent.hash())).toBe(bytesToHex(b.block.header.parentHash));
    expect(bytesToHex(orderedTrieRoot(b.transactions))).toBe(bytesToHex(b.block.header.transactionsTrie));
    expect(bytesToHex(orderedTrieRoot(b.previousTransactions))).toBe(bytesToHex(b.parent.transactionsTrie));
  });

  it('its base fee and extra data follow from the parent by Jovian’s rule (the minimum base fee of the extra data)', () => {
    const h = b.block.header;
    expect(opNextBaseFee(b.rollup, b.parent, h.timestamp)).toBe(h.baseFeePerGas);
    expect([bytesToHex(h.extraData), h.baseFeePerGas]).toEqual(['0x0100000032000000040000000000030d40', 200_000n]);
  });

  it('the run gives the real state root, receipts root, logs bloom, gas used and withdrawals root', () => {
    const h = b.block.header;
    expect([...runRoots(result), bytesToHex(result.withdrawalsRoot!)]).toEqual([...headerRoots(h), bytesToHex(h.withdrawalsRoot!)]);
    expect([bytesToHex(result.stateRoot), bytesToHex(result.receiptsRoot)]).toEqual([b.fixture.expectedStateRoot, b.fixture.expectedReceiptsRoot]);
    // The withdrawals root is the message passer's storage root: its account leaf in the fixture's proof says so too.
    const leaf = RLP.decode(hexToBytes(b.fixture.messageAccount.accountProof.at(-1) as `0x${string}`)) as Uint8Array[];
    const account = RLP.decode(leaf[1]) as Uint8Array[];
    expect(bytesToHex(account[2])).toBe(bytesToHex(b.block.header.withdrawalsRoot!));
    expect(bytesToHex(keccak256(hexToBytes(b.fixture.messageAccount.accountProof[0] as `0x${string}`)))).toBe(bytesToHex(b.block.header.stateRoot));
  });

  it('without the importer’s speed-ups (import.evmFastPaths false) the run is the same, receipt for receipt', async () => {
    const plain = await executeWitnessBlock(b, false);
    expect(plain).toEqual(result);
  }, 60_000);

  it('Jovian’s DA footprint: the parent’s real blobGasUsed is its transactions’ footprint; this block’s is its receipts’ sum', () => {
    expect(footprint(b.previousTransactions)).toBe(b.parent.blobGasUsed);
    expect(b.parent.blobGasUsed).toBe(2_050_776n);
    const receipts = result.receipts.filter((r) => r.type !== DEPOSIT_TX_TYPE);
    expect(receipts.every((r) => r.daFootprint !== undefined && r.daFootprint.gasUsed > 0n && r.daFootprint.scalar === 312n)).toBe(true);
    expect(result.blobGasUsed).toBe(receipts.reduce((n, r) => n + r.daFootprint!.gasUsed, 0n));
    expect(result.blobGasUsed).toBe(footprint(b.transactions));
  });

  it('receipts: deposits with nonce and version 1; Fjord’s L1 fee and Isthmus’ operator fee (zero on Base Sepolia) as derived from the L1-info deposit', () => {
    const fromInfo = l1FieldsFromInfo(b.rollup, b.block)!;
    expect(result.receipts[0]).toMatchObject({ type: DEPOSIT_TX_TYPE, status: 1, depositReceiptVersion: 1n });
    for (const [i, r] of result.receipts.entries()) {
      if (r.type === DEPOSIT_TX_TYPE) continue;
      expect([r.l1?.rules, r.operatorFee]).toEqual(['fjord', { scalar: 0n, constant: 0n }]);
      expect(fromInfo[i]?.l1Fee, `tx ${i}`).toEqual({ rules: r.l1!.rules, fee: r.l1!.fee, gasUsed: r.l1!.gasUsed, ...r.l1!.params });
      expect(fromInfo[i]?.daFootprint, `tx ${i}`).toEqual(r.daFootprint);
    }
  });

  it('as the first block of an archive from block N: receipts as a node gives them check against the real receiptsRoot', async () => {
    const json = receiptsAsNodeJson(result.receipts);
    const stored = await anchorReceipts({ call: async () => json } as unknown as Upstream, b.block, b.rollup);
    expect(stored.map((s) => s.gasUsed)).toEqual(result.receipts.map((r) => r.gasUsed));
    expect(stored.map((s) => s.l1Fee?.fee)).toEqual(result.receipts.map((r) => r.l1?.fee));
    // On the wire as op-reth prints a Jovian receipt: daFootprintGasScalar, and the footprint as blobGasUsed.
    const [deposit, first] = formatBlockReceipts(b.block, stored);
    expect(first).toMatchObject({
      daFootprintGasScalar: '0x138',
      blobGasUsed: bigIntToQuantity(result.receipts[1].daFootprint!.gasUsed),
      l1Fee: bigIntToQuantity(result.receipts[1].l1!.fee),
    });
    expect(first).not.toHaveProperty('operatorFeeScalar');
    for (const absent of ['daFootprintGasScalar', 'blobGasUsed', 'l1Fee']) expect(deposit).not.toHaveProperty(absent);
  });
});
