import { bytesToBigInt } from '@ethereumjs/util';
import { DEPOSIT_TX_TYPE } from '../../chain/op/depositTx.js';
import type { L1FeeParams, L1FeeRules } from '../../chain/op/l1Info.js';
import { flzCompressLength } from './fastLz.js';

/**
 * What an OP-stack chain charges a transaction for posting it to L1 (its "L1 data fee"), by the
 * rules of each upgrade, from the L1 attributes the L1Block predeploy holds. Deposits (type 0x7E)
 * pay none: they came from L1.
 *
 * - Bedrock: the transaction's calldata gas (4 a zero byte, 16 another) plus 68 non-zero bytes
 *   for the signature, plus `overhead`; the fee is that gas × L1 base fee × `scalar` / 10⁶.
 * - Regolith: the same without the 68 bytes.
 * - Ecotone: calldata gas × (16 × baseFeeScalar × L1 base fee + blobBaseFeeScalar × blob base
 *   fee) / (16 × 10⁶); no overhead. The first Ecotone block, whose L1Block still holds Bedrock's
 *   values (blob base fee and both scalars zero), is charged as Regolith.
 * - Fjord: the size estimated from the FastLZ-compressed length of the signed transaction
 *   (intercept −42,585,600 + 836,500 a byte, at least 100 bytes, all scaled by 10⁶) × the same
 *   per-byte price / 10¹²; the receipt's `l1GasUsed` is that size × 16. (The GasPriceOracle,
 *   asked about unsigned bytes, adds 68 to their length for the signature; a block's are signed.)
 */

export interface L1Cost {
  /** The fee, in wei of the L2 chain. */
  fee: bigint;
  /** The receipt's `l1GasUsed`. */
  gasUsed: bigint;
}

const FJORD_INTERCEPT = -42_585_600n;
const FJORD_FASTLZ_COEF = 836_500n;
const FJORD_MIN_SIZE_SCALED = 100n * 1_000_000n;
/** Non-zero bytes Bedrock added to a transaction's calldata for a signature it did not count. */
const SIGNATURE_BYTES = 68n;

/** Gas of `data` as calldata: 4 a zero byte, 16 another. */
function calldataGas(data: Uint8Array): bigint {
  let zeroes = 0;
  for (const byte of data) if (byte === 0) zeroes++;
  return BigInt(zeroes) * 4n + BigInt(data.length - zeroes) * 16n;
}

/** Ecotone's and Fjord's price of one compressed byte, × 16 × 10⁶. */
function bytePriceScaled(p: L1FeeParams): bigint {
  return 16n * p.baseFeeScalar * p.l1BaseFee + p.blobBaseFeeScalar * p.l1BlobBaseFee;
}

/**
 * Fjord's estimate of a transaction's size once compressed, × 10⁶: the linear fit of its FastLZ
 * length, at least 100 bytes. The L1 data fee from Fjord, and Jovian's data-availability footprint
 * (op-reth `estimate_tx_compressed_size`), are computed from it.
 */
export function fjordEstimatedSize(tx: Uint8Array): bigint {
  const estimated = FJORD_INTERCEPT + FJORD_FASTLZ_COEF * BigInt(flzCompressLength(tx));
  return estimated > FJORD_MIN_SIZE_SCALED ? estimated : FJORD_MIN_SIZE_SCALED;
}

/** Jovian's data-availability footprint of a signed transaction: its Fjord size estimate in bytes × the DA footprint gas scalar. */
export function daFootprint(tx: Uint8Array, scalar: bigint): bigint {
  return (fjordEstimatedSize(tx) / 1_000_000n) * scalar;
}

/**
 * The L1 data fee of a transaction given as its EIP-2718 bytes (what a block carries), under
 * `rules`; undefined for a deposit or no bytes (nothing charged).
 */
export function l1Cost(tx: Uint8Array, rules: L1FeeRules, p: L1FeeParams): L1Cost | undefined {
  if (tx.length === 0 || tx[0] === DEPOSIT_TX_TYPE) return undefined;
  switch (rules) {
    case 'bedrock':
    case 'regolith': {
      const gasUsed = calldataGas(tx) + (rules === 'bedrock' ? SIGNATURE_BYTES * 16n : 0n) + p.overhead;
      return { fee: (gasUsed * p.l1BaseFee * p.scalar) / 1_000_000n, gasUsed };
    }
    case 'ecotone': {
      const gasUsed = calldataGas(tx);
      return { fee: (gasUsed * bytePriceScaled(p)) / 16_000_000n, gasUsed };
    }
    case 'fjord': {
      const size = fjordEstimatedSize(tx);
      return { fee: (size * bytePriceScaled(p)) / 1_000_000_000_000n, gasUsed: (size * 16n) / 1_000_000n };
    }
  }
}

/**
 * The rules a block is charged by: its upgrade's, except the first Ecotone block (L1Block not yet
 * holding Ecotone's values: blob base fee and both scalars zero), charged as Regolith.
 */
export function l1FeeRulesFor(upgrade: L1FeeRules, p: L1FeeParams): L1FeeRules {
  const ecotoneValuesUnset = p.l1BlobBaseFee === 0n && p.baseFeeScalar === 0n && p.blobBaseFeeScalar === 0n;
  return (upgrade === 'ecotone' || upgrade === 'fjord') && ecotoneValuesUnset ? 'regolith' : upgrade;
}

/** The L1Block predeploy, whose storage holds the L1 attributes. */
export const L1_BLOCK_ADDRESS = '0x4200000000000000000000000000000000000015';

/** Its storage slots (the contract's layout, as op-geth reads it). */
export const L1_BLOCK_SLOTS = { l1BaseFee: 1n, feeScalars: 3n, overhead: 5n, scalar: 6n, l1BlobBaseFee: 7n } as const;

/**
 * The rules a transaction at this point of a block of `upgrade` is charged by, and the parameters
 * they read from the L1Block contract's storage (`read(slot)` answers a slot's 32-byte word, zeros
 * when unset) — only the slots those rules read, as op-geth reads them (a block's execution
 * witness holds no others): the L1 base fee (slot 1); Bedrock's and Regolith's overhead and
 * scalar (5, 6); Ecotone's two scalars, which share slot 3 (baseFeeScalar in bytes [16, 20),
 * blobBaseFeeScalar in [20, 24), big-endian), and the blob base fee (7). A block of Ecotone or
 * later whose L1Block holds no Ecotone values yet is charged as Regolith ({@link l1FeeRulesFor}).
 * Unread fields are 0.
 */
export async function l1FeeAt(
  read: (slot: bigint) => Promise<Uint8Array>,
  upgrade: L1FeeRules,
  reads: 'op-geth' | 'op-revm' = 'op-geth',
): Promise<{ rules: L1FeeRules; params: L1FeeParams }> {
  const params: L1FeeParams = {
    l1BaseFee: bytesToBigInt(await read(L1_BLOCK_SLOTS.l1BaseFee)),
    overhead: 0n,
    scalar: 0n,
    l1BlobBaseFee: 0n,
    baseFeeScalar: 0n,
    blobBaseFeeScalar: 0n,
  };
  if (upgrade === 'ecotone' || upgrade === 'fjord') {
    const scalars = await read(L1_BLOCK_SLOTS.feeScalars);
    params.baseFeeScalar = bytesToBigInt(scalars.subarray(16, 20));
    params.blobBaseFeeScalar = bytesToBigInt(scalars.subarray(20, 24));
    params.l1BlobBaseFee = bytesToBigInt(await read(L1_BLOCK_SLOTS.l1BlobBaseFee));
  }
  const rules = l1FeeRulesFor(upgrade, params);
  if (rules === 'bedrock' || rules === 'regolith') {
    params.overhead = bytesToBigInt(await read(L1_BLOCK_SLOTS.overhead));
    // op-revm (anvil's OP mode) reads no scalar slot when Ecotone's values are unset: its fee
    // then takes Ecotone's base fee scalar, zero. Only which slots are loaded shows it (anvil keeps them).
    const ecotoneUnset = rules !== upgrade;
    if (!(reads === 'op-revm' && ecotoneUnset)) params.scalar = bytesToBigInt(await read(L1_BLOCK_SLOTS.scalar));
  }
  return { rules, params };
}
