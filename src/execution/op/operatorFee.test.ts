import { describe, expect, it } from 'vitest';
import { operatorFee, operatorFeeAt, operatorFeeCharge, operatorFeeParamsOf, operatorFeeRefund } from './operatorFee.js';

/**
 * The operator fee of Isthmus and Jovian (`operatorFee.ts`). Vectors: op-revm's own tests
 * (bluealloy/revm at 19f3067, `crates/op-revm/src/l1block.rs`: `test_operator_fee_charge_formulas`,
 * `test_operator_fee_refund`), and the slot layout worked by hand.
 */
describe('the operator fee (Isthmus, Jovian)', () => {
  it('op-revm’s vectors: scalar 1,000, constant 10, 1,000 gas → 11 (Isthmus), 100,000,010 (Jovian)', () => {
    const p = { scalar: 1000n, constant: 10n };
    expect(operatorFeeCharge(Uint8Array.of(0x01), 1000n, p, 'isthmus')).toBe(11n);
    expect(operatorFeeCharge(Uint8Array.of(0x01), 1000n, p, 'jovian')).toBe(100_000_010n);
  });

  it('op-revm’s refund vector: 50,000 gas bought, none used, scalar 2,000, constant 5 → 100 back (105 charged, 5 kept)', () => {
    const p = { scalar: 2000n, constant: 5n };
    expect(operatorFee(50_000n, p, 'isthmus')).toBe(105n);
    expect(operatorFeeRefund(50_000n, 0n, p, 'isthmus')).toBe(100n);
    // The constant is never given back: all gas used, nothing back.
    expect(operatorFeeRefund(50_000n, 50_000n, p, 'isthmus')).toBe(0n);
  });

  it('deposits and empty bytes pay none; Isthmus rounds the scaled product down', () => {
    const p = { scalar: 1n, constant: 7n };
    expect(operatorFeeCharge(Uint8Array.of(0x7e, 0x01), 21_000n, p, 'isthmus')).toBe(0n);
    expect(operatorFeeCharge(new Uint8Array(0), 21_000n, p, 'jovian')).toBe(0n);
    expect(operatorFee(999_999n, p, 'isthmus')).toBe(7n);
    expect(operatorFee(1_000_000n, p, 'isthmus')).toBe(8n);
  });

  it('saturates at 2²⁵⁶ − 1, as op-revm’s U256 arithmetic does', () => {
    const max = (1n << 256n) - 1n;
    expect(operatorFee(max, { scalar: 0xffffffffn, constant: 0xffffffffffffffffn }, 'jovian')).toBe(max);
    expect(operatorFee(max, { scalar: 0xffffffffn, constant: 0n }, 'isthmus')).toBe(max / 1_000_000n);
  });

  it('L1Block slot 8: the scalar a uint32 in bytes [20, 24), the constant a uint64 in [24, 32)', async () => {
    const word = new Uint8Array(32);
    word.set([0xde, 0xad], 18); // bytes before the scalar are not read
    word.set([0x11, 0x22, 0x33, 0x44], 20);
    word.set([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08], 24);
    expect(operatorFeeParamsOf(word)).toEqual({ scalar: 0x11223344n, constant: 0x0102030405060708n });
    const asked: bigint[] = [];
    const params = await operatorFeeAt(async (slot) => {
      asked.push(slot);
      return word;
    });
    expect([asked, params.scalar]).toEqual([[8n], 0x11223344n]);
    expect(() => operatorFeeParamsOf(Uint8Array.of(1))).toThrow('32 bytes');
  });
});
