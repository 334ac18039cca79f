import type { Common } from '@ethereumjs/common';
import { type CustomPrecompile, EVMError, type ExecResult, getActivePrecompiles, type PrecompileInput } from '@ethereumjs/evm';
import { Address, bytesToBigInt } from '@ethereumjs/util';
import { p256 } from '@noble/curves/nist.js';
import { isActive, type OpRollup } from '../../chain/op/rollup.js';

/**
 * The precompiles OP-stack upgrades add or bound (op-geth `core/vm/contracts.go`):
 *
 * - Fjord: P256VERIFY at 0x100 (RIP-7212): 160 bytes of input (message hash, r, s, public key x,
 *   y), 3,450 gas whatever the input; 32 bytes ending in 1 for a valid secp256r1 signature, no
 *   output otherwise (a wrong length, r or s outside [1, n−1], a key off the curve or at
 *   infinity, a signature that does not verify). High s is accepted, as Go's `ecdsa.Verify` does.
 * - Granite: the BN254 pairing (0x08) refuses more than 112,687 bytes of input (an error that
 *   consumes all the call's gas), against the 10,000-odd pairs an unbounded input could ask.
 * - Isthmus: Prague's BLS12-381 precompiles (EIP-2537), three of them bounded the same way: G1 MSM
 *   (0x0c) to 513,760 bytes (3,211 pairs of point and scalar), G2 MSM (0x0e) to 488,448 (1,696),
 *   the pairing (0x0f) to 235,008 (612 pairs), as op-revm's `isthmus()` precompiles bound them.
 * - Jovian: smaller bounds, as op-reth's `jovian()` precompiles have them (base/base 98a8db8d,
 *   `crates/execution/revm/src/precompiles.rs`): the BN254 pairing to 81,984 bytes (427 pairs), G1
 *   MSM to 288,960 (1,806), G2 MSM to 278,784 (968), the BLS12-381 pairing to 156,672 (408).
 */

export const P256VERIFY_ADDRESS = new Address(Uint8Array.from({ length: 20 }, (_, i) => (i === 18 ? 1 : 0)));
export const P256VERIFY_GAS = 3450n;
const BN254_PAIRING = 0x08;
export const BN254_PAIRING_MAX_INPUT_GRANITE = 112_687;
/** Isthmus' bounds on BLS12-381 inputs by precompile address: G1 MSM, G2 MSM, pairing. */
export const ISTHMUS_BLS_BOUNDS: ReadonlyArray<readonly [number, number]> = [
  [0x0c, 513_760],
  [0x0e, 488_448],
  [0x0f, 235_008],
];
/** Jovian's smaller bounds: the BN254 pairing, and the same three BLS12-381 precompiles (op-reth's `jovian()` precompiles). */
export const BN254_PAIRING_MAX_INPUT_JOVIAN = 81_984;
export const JOVIAN_BLS_BOUNDS: ReadonlyArray<readonly [number, number]> = [
  [0x0c, 288_960],
  [0x0e, 278_784],
  [0x0f, 156_672],
];

const VALID = Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 1 : 0));

/** RIP-7212's answer for `input`: 32 bytes ending in 1 for a valid signature, else none. */
export function p256Verify(input: Uint8Array): Uint8Array {
  if (input.length !== 160) return new Uint8Array();
  const hash = input.subarray(0, 32);
  const r = bytesToBigInt(input.subarray(32, 64));
  const s = bytesToBigInt(input.subarray(64, 96));
  const n = p256.Point.CURVE().n;
  if (r === 0n || r >= n || s === 0n || s >= n) return new Uint8Array();
  const key = new Uint8Array(65);
  key[0] = 0x04;
  key.set(input.subarray(96, 160), 1);
  try {
    // fromBytes checks the point: on the curve, coordinates below p, not infinity.
    p256.Point.fromBytes(key);
    const signature = new Uint8Array(64);
    signature.set(input.subarray(32, 96));
    return p256.verify(signature, hash, key, { prehash: false, lowS: false, format: 'compact' }) ? VALID : new Uint8Array();
  } catch {
    return new Uint8Array();
  }
}

function p256Precompile(opts: PrecompileInput): ExecResult {
  if (opts.gasLimit < P256VERIFY_GAS)
    return { returnValue: new Uint8Array(), executionGasUsed: opts.gasLimit, exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS) };
  return { returnValue: p256Verify(opts.data), executionGasUsed: P256VERIFY_GAS };
}

/** The precompiles `rollup`'s blocks at `time` have beyond Ethereum's at the upgrade's fork, for an EVM on `common`. */
export function opPrecompiles(rollup: OpRollup, time: bigint, common: Common): CustomPrecompile[] {
  const out: CustomPrecompile[] = [];
  if (isActive(rollup, 'fjord', time)) out.push({ address: P256VERIFY_ADDRESS, function: p256Precompile });
  const jovian = isActive(rollup, 'jovian', time);
  if (isActive(rollup, 'granite', time)) out.push(bounded(common, BN254_PAIRING, jovian ? BN254_PAIRING_MAX_INPUT_JOVIAN : BN254_PAIRING_MAX_INPUT_GRANITE));
  if (isActive(rollup, 'isthmus', time)) {
    for (const [address, max] of jovian ? JOVIAN_BLS_BOUNDS : ISTHMUS_BLS_BOUNDS) out.push(bounded(common, address, max));
  }
  return out;
}

/** The precompile at `address` (a byte) as the fork has it, refusing more than `max` bytes of input with all the call's gas. */
function bounded(common: Common, address: number, max: number): CustomPrecompile {
  const at = new Address(Uint8Array.from({ length: 20 }, (_, i) => (i === 19 ? address : 0)));
  const inner = getActivePrecompiles(common).get(at.toString().slice(2));
  if (inner === undefined) throw new Error(`the precompile at ${at} is not active at this fork`);
  return {
    address: at,
    function: (opts: PrecompileInput) => {
      if (opts.data.length > max) {
        return { returnValue: new Uint8Array(), executionGasUsed: opts.gasLimit, exceptionError: new EVMError(EVMError.errorMessages.INVALID_INPUT_LENGTH) };
      }
      return inner(opts) as ExecResult;
    },
  };
}
