import { bigIntToBytes, bytesToBigInt, concatBytes, setLengthLeft } from '@ethereumjs/util';
import { DomainError } from '../../errors/domainError.js';
import { isActive, type OpRollup } from './rollup.js';

/**
 * An OP-stack block's base fee: EIP-1559's rule with the chain's parameters. Before Canyon the
 * change denominator is the config's `eip1559Denominator`, from Canyon `eip1559DenominatorCanyon`.
 * From Holocene a block's extra data carries the parameters (version 0: one version byte, then the
 * denominator and the elasticity as 4-byte big-endian numbers), and a block's base fee is computed
 * with its parent's; the sequencer chooses them through the payload attributes' `eip1559Params`,
 * zeros meaning the config's Canyon values. From Jovian the extra data is version 1 and adds a
 * minimum base fee (8 bytes, big-endian) below which the next block's may not fall, and the
 * parent's gas used counts as its data-availability footprint (its blobGasUsed) when that is more
 * (op-reth `compute_jovian_base_fee`, base/base 98a8db8d `crates/execution/chainspec/src/basefee.rs`).
 */

/** A block's header that is not what its rules require. */
export class OpBlockError extends DomainError {
  override readonly name = 'OpBlockError';
}

export interface Eip1559Params {
  denominator: bigint;
  elasticity: bigint;
}

/** Holocene's extra data of a block built with `params` (the payload attributes' 8 bytes; zeros: the config's). */
export function holoceneExtraData(rollup: OpRollup, params: Uint8Array): Uint8Array {
  if (params.length !== 8) throw new OpBlockError(`eip1559Params: ${params.length} bytes, not 8`);
  const chosen = params.some((b) => b !== 0) ? params : concatBytes(word4(rollup.eip1559.denominatorCanyon), word4(rollup.eip1559.elasticity));
  return concatBytes(Uint8Array.of(0), chosen);
}

function word4(n: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(n), 4);
}

/** The parameters a Holocene block's extra data holds. Throws {@link OpBlockError} for any other shape. */
export function decodeHoloceneExtraData(extra: Uint8Array): Eip1559Params {
  if (extra.length !== 9 || extra[0] !== 0) throw new OpBlockError(`Holocene extra data: not version 0 with 8 bytes of parameters (${extra.length} bytes)`);
  const denominator = bytesToBigInt(extra.subarray(1, 5));
  const elasticity = bytesToBigInt(extra.subarray(5, 9));
  if (denominator === 0n) throw new OpBlockError('Holocene extra data: denominator 0');
  return { denominator, elasticity };
}

/** The parameters and minimum base fee a Jovian block's extra data holds. Throws {@link OpBlockError} for any other shape. */
export function decodeJovianExtraData(extra: Uint8Array): Eip1559Params & { minBaseFee: bigint } {
  if (extra.length !== 17 || extra[0] !== 1) throw new OpBlockError(`Jovian extra data: not version 1 with 16 bytes of parameters (${extra.length} bytes)`);
  const denominator = bytesToBigInt(extra.subarray(1, 5));
  const elasticity = bytesToBigInt(extra.subarray(5, 9));
  if (denominator === 0n) throw new OpBlockError('Jovian extra data: denominator 0');
  return { denominator, elasticity, minBaseFee: bytesToBigInt(extra.subarray(9, 17)) };
}

/** What of a parent header its child's base fee depends on. */
export interface BaseFeeParent {
  timestamp: bigint;
  extraData: Uint8Array;
  gasLimit: bigint;
  gasUsed: bigint;
  baseFeePerGas?: bigint;
  blobGasUsed?: bigint;
}

/** The base fee the block at `time` after `parent` must have on `rollup`'s chain. Throws {@link OpBlockError} for a parent whose extra data gives none. */
export function opNextBaseFee(rollup: OpRollup, parent: BaseFeeParent, time: bigint): bigint {
  const baseFee = parent.baseFeePerGas ?? 0n;
  if (!isActive(rollup, 'jovian', parent.timestamp)) {
    return nextBaseFee({ gasLimit: parent.gasLimit, gasUsed: parent.gasUsed, baseFee }, baseFeeParams(rollup, parent, time));
  }
  const { minBaseFee, ...params } = decodeJovianExtraData(parent.extraData);
  const footprint = parent.blobGasUsed ?? 0n;
  const next = nextBaseFee({ gasLimit: parent.gasLimit, gasUsed: footprint > parent.gasUsed ? footprint : parent.gasUsed, baseFee }, params);
  return next < minBaseFee ? minBaseFee : next;
}

/** The parameters the base fee of a block at `time` is computed with, from its parent (before Jovian). */
export function baseFeeParams(rollup: OpRollup, parent: { timestamp: bigint; extraData: Uint8Array }, time: bigint): Eip1559Params {
  if (isActive(rollup, 'holocene', parent.timestamp)) return decodeHoloceneExtraData(parent.extraData);
  const denominator = isActive(rollup, 'canyon', time) ? rollup.eip1559.denominatorCanyon : rollup.eip1559.denominator;
  return { denominator, elasticity: rollup.eip1559.elasticity };
}

/** EIP-1559's next base fee after a parent with `gasUsed` of `gasLimit` at `baseFee`, under `params`. */
export function nextBaseFee(parent: { gasLimit: bigint; gasUsed: bigint; baseFee: bigint }, params: Eip1559Params): bigint {
  if (params.elasticity === 0n) throw new OpBlockError('EIP-1559 elasticity 0');
  const target = parent.gasLimit / params.elasticity;
  if (parent.gasUsed === target) return parent.baseFee;
  if (parent.gasUsed > target) {
    const delta = (parent.baseFee * (parent.gasUsed - target)) / target / params.denominator;
    return parent.baseFee + (delta > 1n ? delta : 1n);
  }
  const delta = (parent.baseFee * (target - parent.gasUsed)) / target / params.denominator;
  return parent.baseFee > delta ? parent.baseFee - delta : 0n;
}
