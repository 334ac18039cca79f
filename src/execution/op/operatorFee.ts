import { bytesToBigInt, hexToBytes } from '@ethereumjs/util';
import { DEPOSIT_TX_TYPE } from '../../chain/op/depositTx.js';

/**
 * The operator fee an OP-stack chain charges from Isthmus on, beside the L1 data fee: a price per
 * unit of gas and a constant per transaction, set by the chain's operator in its SystemConfig and
 * carried into the L1Block predeploy by the L1 attributes deposit. The fee is taken from the
 * sender up front on the transaction's gas limit, like gas; what the unused gas would have cost is
 * given back after the run, and the fee kept goes to the operator fee vault (0x42…1b). Deposits and
 * empty bytes pay none.
 *
 * - Isthmus: gas × scalar / 10⁶ + constant (the scalar is in millionths).
 * - Jovian: gas × scalar × 100 + constant (the scalar is in hundredths of a wei a gas).
 *
 * Both are computed on 256 bits saturating at 2²⁵⁶ − 1, as op-revm does (`operator_fee_charge`).
 * The parameters share L1Block's slot 8: the scalar a big-endian uint32 in bytes [20, 24), the
 * constant a uint64 in [24, 32).
 */

export type OperatorFeeRules = 'isthmus' | 'jovian';

export interface OperatorFeeParams {
  scalar: bigint;
  constant: bigint;
}

/** The vault the operator fee is credited to. */
export const OPERATOR_FEE_VAULT = hexToBytes('0x420000000000000000000000000000000000001b');

/** L1Block's slot of the two operator fee parameters. */
export const OPERATOR_FEE_SLOT = 8n;

const MAX_UINT256 = (1n << 256n) - 1n;
const ISTHMUS_SCALAR_DECIMALS = 1_000_000n;
const JOVIAN_MULTIPLIER = 100n;

const saturate = (x: bigint): bigint => (x > MAX_UINT256 ? MAX_UINT256 : x);

/** The parameters from L1Block's slot 8, given as its full 32-byte word. */
export function operatorFeeParamsOf(word: Uint8Array): OperatorFeeParams {
  if (word.length !== 32) throw new RangeError(`an L1Block storage word is 32 bytes, not ${word.length}`);
  return { scalar: bytesToBigInt(word.subarray(20, 24)), constant: bytesToBigInt(word.subarray(24, 32)) };
}

/** The parameters as the L1Block contract holds them (`read(slot)` answers a slot's 32-byte word). */
export async function operatorFeeAt(read: (slot: bigint) => Promise<Uint8Array>): Promise<OperatorFeeParams> {
  return operatorFeeParamsOf(await read(OPERATOR_FEE_SLOT));
}

/** The operator fee of `gas` under `rules`. */
export function operatorFee(gas: bigint, p: OperatorFeeParams, rules: OperatorFeeRules): bigint {
  const product = rules === 'jovian' ? saturate(saturate(gas * p.scalar) * JOVIAN_MULTIPLIER) : saturate(gas * p.scalar) / ISTHMUS_SCALAR_DECIMALS;
  return saturate(product + p.constant);
}

/**
 * What a transaction (its EIP-2718 bytes) is charged before its run, on its gas limit: 0 for a
 * deposit or no bytes.
 */
export function operatorFeeCharge(tx: Uint8Array, gasLimit: bigint, p: OperatorFeeParams, rules: OperatorFeeRules): bigint {
  if (tx.length === 0 || tx[0] === DEPOSIT_TX_TYPE) return 0n;
  return operatorFee(gasLimit, p, rules);
}

/** What is given back after the run: the fee of the gas limit less the fee of the gas used (refunds counted as unused). */
export function operatorFeeRefund(gasLimit: bigint, gasUsed: bigint, p: OperatorFeeParams, rules: OperatorFeeRules): bigint {
  const refund = operatorFee(gasLimit, p, rules) - operatorFee(gasUsed, p, rules);
  return refund > 0n ? refund : 0n;
}
