import { calculateSigRecovery, concatBytes, setLengthLeft } from '@ethereumjs/util';
import { recover } from 'tiny-secp256k1';

/**
 * secp256k1 public-key recovery (the `ecrecover` of @ethereumjs/util: a transaction's sender,
 * the ECRECOVER precompile) on tiny-secp256k1, libsecp256k1 compiled to WebAssembly: 198 µs a
 * recovery here, against 1,003 µs for @noble/curves in JavaScript (what @ethereumjs recovers
 * with by default) and 41 µs for the native `secp256k1` binding, which needs a prebuilt binary for
 * the platform or a compiler and falls back to a slower JavaScript curve without one. A block of
 * the bench chain spent about a quarter of its import time recovering its senders.
 *
 * The chains' Common carries it as `customCrypto.ecrecover`. Same contract as @ethereumjs's:
 * the 64-byte uncompressed public key without its prefix, and a throw for what does not recover
 * (a `v` that is neither recovery id, `r` or `s` zero or not below the curve order, an `r` that
 * is no point's x-coordinate, a point at infinity) — the precompile answers empty output then.
 * `s` above half the order recovers, as it does there: transactions refuse it (EIP-2) where they
 * check their signature, and the precompile accepts it.
 */
export function ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  const recovery = calculateSigRecovery(v, chainId);
  if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value');
  const key = recover(msgHash, concatBytes(setLengthLeft(r, 32), setLengthLeft(s, 32)), recovery === 0n ? 0 : 1, false);
  if (key === null) throw new Error('signature does not recover a public key');
  return key.subarray(1);
}
