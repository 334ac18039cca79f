import { bytesToBigInt, bytesToHex } from '@ethereumjs/util';

/** The formula of an OP-stack transaction's L1 data fee (`execution/op/l1Cost.ts`). */
export type L1FeeRules = 'bedrock' | 'regolith' | 'ecotone' | 'fjord';

/** The L1 attributes the fee is computed from (L1Block's storage, as op-geth reads it). */
export interface L1FeeParams {
  l1BaseFee: bigint;
  /** Bedrock/Regolith only. */
  overhead: bigint;
  /** Bedrock/Regolith only (10⁶ = 1). */
  scalar: bigint;
  l1BlobBaseFee: bigint;
  baseFeeScalar: bigint;
  blobBaseFeeScalar: bigint;
}

/**
 * The L1 attributes an OP-stack block's first transaction (the L1-info deposit to L1Block) carries
 * in its calldata, by the upgrade's format (op-reth's `L1BlockInfo*::decode_calldata`, base/base
 * 98a8db8d `crates/consensus/protocol/src/info/`): Bedrock's ABI-encoded `setL1BlockValues`,
 * then the packed `setL1BlockValuesEcotone`, `…Isthmus` (the operator fee's scalar and constant
 * after) and `…Jovian` (the DA footprint gas scalar after). What op-geth and op-reth derive a
 * receipt's L1 fields from; the same values the deposit writes into L1Block's storage.
 */
export interface L1Info {
  format: 'bedrock' | 'ecotone' | 'isthmus' | 'jovian';
  l1BaseFee: bigint;
  /** Bedrock's. */
  overhead?: bigint;
  scalar?: bigint;
  /** Ecotone's and later. */
  l1BlobBaseFee?: bigint;
  baseFeeScalar?: bigint;
  blobBaseFeeScalar?: bigint;
  /** Isthmus' and later. */
  operatorFeeScalar?: bigint;
  operatorFeeConstant?: bigint;
  /** Jovian's. */
  daFootprintGasScalar?: bigint;
}

const SELECTORS: Record<string, { format: L1Info['format']; length: number }> = {
  '0x015d8eb9': { format: 'bedrock', length: 4 + 32 * 8 },
  '0x440a5e20': { format: 'ecotone', length: 4 + 32 * 5 },
  '0x098999be': { format: 'isthmus', length: 4 + 32 * 5 + 4 + 8 },
  '0x3db6be2b': { format: 'jovian', length: 4 + 32 * 5 + 4 + 8 + 2 },
};

/** The attributes of an L1-info deposit's calldata; undefined for calldata of no known format (or length). */
export function decodeL1Info(data: Uint8Array): L1Info | undefined {
  const known = SELECTORS[bytesToHex(data.subarray(0, 4))];
  if (known === undefined || data.length !== known.length) return undefined;
  const at = (start: number, end: number) => bytesToBigInt(data.subarray(start, end));
  if (known.format === 'bedrock') return { format: 'bedrock', l1BaseFee: at(68, 100), overhead: at(196, 228), scalar: at(228, 260) };
  const info: L1Info = { format: known.format, baseFeeScalar: at(4, 8), blobBaseFeeScalar: at(8, 12), l1BaseFee: at(36, 68), l1BlobBaseFee: at(68, 100) };
  if (known.format === 'isthmus' || known.format === 'jovian') {
    info.operatorFeeScalar = at(164, 168);
    info.operatorFeeConstant = at(168, 176);
  }
  if (known.format === 'jovian') info.daFootprintGasScalar = at(176, 178);
  return info;
}
