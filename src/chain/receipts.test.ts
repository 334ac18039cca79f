import { RLP } from '@ethereumjs/rlp';
import { hexToBytes } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { decodeReceipts, encodeReceipts, type StoredReceipt } from './receipts.js';

const log: StoredReceipt['logs'][number] = [hexToBytes(`0x${'11'.repeat(20)}`), [hexToBytes(`0x${'22'.repeat(32)}`)], hexToBytes('0x2a')];

describe('stored receipts', () => {
  it('round-trip Ethereum receipts with six items each, as before the OP fields', () => {
    const receipts: StoredReceipt[] = [
      { statusOrRoot: Uint8Array.of(1), cumulativeGasUsed: 21_000n, gasUsed: 21_000n, logs: [] },
      { statusOrRoot: Uint8Array.of(0), cumulativeGasUsed: 90_000n, gasUsed: 69_000n, logs: [log], contractAddress: hexToBytes(`0x${'33'.repeat(20)}`) },
      { statusOrRoot: Uint8Array.of(1), cumulativeGasUsed: 111_000n, gasUsed: 21_000n, logs: [], blobGasUsed: 131_072n, blobGasPrice: 1n },
    ];
    const bytes = encodeReceipts(receipts);
    expect((RLP.decode(bytes) as unknown[][]).map((r) => r.length)).toEqual([6, 6, 6]);
    expect(decodeReceipts(bytes)).toEqual(receipts);
  });

  it("round-trip OP receipts' fields: a deposit's nonce and version, an ordinary transaction's L1 and operator fees and Jovian's DA footprint", () => {
    const receipts: StoredReceipt[] = [
      { statusOrRoot: Uint8Array.of(1), cumulativeGasUsed: 46_000n, gasUsed: 46_000n, logs: [], depositNonce: 7n, depositReceiptVersion: 1n },
      { statusOrRoot: Uint8Array.of(1), cumulativeGasUsed: 50_000n, gasUsed: 4_000n, logs: [], depositNonce: 0n },
      {
        statusOrRoot: Uint8Array.of(1),
        cumulativeGasUsed: 71_000n,
        gasUsed: 21_000n,
        logs: [log],
        l1Fee: {
          rules: 'fjord',
          fee: 1_234n,
          gasUsed: 1_600n,
          l1BaseFee: 30n,
          overhead: 0n,
          scalar: 0n,
          l1BlobBaseFee: 1n,
          baseFeeScalar: 1_368n,
          blobBaseFeeScalar: 810_949n,
        },
        operatorFee: { scalar: 0n, constant: 5n },
      },
      {
        statusOrRoot: Uint8Array.of(1),
        cumulativeGasUsed: 92_000n,
        gasUsed: 21_000n,
        logs: [],
        l1Fee: {
          rules: 'regolith',
          fee: 9n,
          gasUsed: 2_100n,
          l1BaseFee: 7n,
          overhead: 188n,
          scalar: 684_000n,
          l1BlobBaseFee: 0n,
          baseFeeScalar: 0n,
          blobBaseFeeScalar: 0n,
        },
      },
      {
        statusOrRoot: Uint8Array.of(1),
        cumulativeGasUsed: 113_000n,
        gasUsed: 21_000n,
        logs: [],
        l1Fee: {
          rules: 'fjord',
          fee: 5n,
          gasUsed: 1_600n,
          l1BaseFee: 3n,
          overhead: 0n,
          scalar: 0n,
          l1BlobBaseFee: 1n,
          baseFeeScalar: 2n,
          blobBaseFeeScalar: 3n,
        },
        operatorFee: { scalar: 0n, constant: 0n },
        daFootprint: { gasUsed: 429_312n, scalar: 312n },
      },
    ];
    expect(decodeReceipts(encodeReceipts(receipts))).toEqual(receipts);
  });
});
