import { bytesToHex, hexToBytes, ecrecover as reference } from '@ethereumjs/util';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { ecrecover } from './ecrecover.js';
import { keccak256 } from './keccak.js';

/** The curve order n, and n - 1 as 32 bytes. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const word = (x: bigint) => hexToBytes(`0x${x.toString(16).padStart(64, '0')}`);

/** The outcome of a recovery: the key's hex, or that it threw. */
function outcome(f: () => Uint8Array): string {
  try {
    return bytesToHex(f());
  } catch {
    return 'throws';
  }
}

const both = (h: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint) => [
  outcome(() => ecrecover(h, v, r, s, chainId)),
  outcome(() => reference(h, v, r, s, chainId)),
];

describe('ecrecover (tiny-secp256k1) against @ethereumjs/util', () => {
  it('recovers what @ethereumjs recovers for 200 signatures, with v as 27/28 and as EIP-155', () => {
    for (let i = 1; i <= 200; i++) {
      const key = keccak256(word(BigInt(i)));
      const h = keccak256(word(BigInt(i) * 7919n));
      const sig = secp256k1.sign(h, key, { prehash: false, format: 'recovered' });
      const rec = BigInt(sig[0]!);
      const r = sig.subarray(1, 33);
      const s = sig.subarray(33, 65);
      const [ours, theirs] = both(h, 27n + rec, r, s);
      expect(ours).toBe(theirs);
      expect(ours).toBe(bytesToHex(secp256k1.getPublicKey(key, false).subarray(1)));
      expect(both(h, 1n * 2n + 35n + rec, r, s, 1n)).toEqual([ours, ours]);
      // Typed transactions carry the recovery id itself.
      expect(both(h, rec, r, s)).toEqual([ours, ours]);
      // The same signature with s mirrored (high s) recovers the other parity's key in both.
      const high = word(N - BigInt(bytesToHex(s)));
      const [a, b] = both(h, 28n - rec, r, high);
      expect(a).toBe(b);
      expect(a).toBe(ours);
    }
  });

  it('throws where @ethereumjs throws: bad v, zero or out-of-range r and s, an r off the curve', () => {
    const key = keccak256(word(5n));
    const h = keccak256(word(6n));
    const sig = secp256k1.sign(h, key, { prehash: false, format: 'recovered' });
    const r = sig.subarray(1, 33);
    const s = sig.subarray(33, 65);
    const cases: Array<[bigint, Uint8Array, Uint8Array, bigint?]> = [
      [26n, r, s],
      [29n, r, s],
      [2n, r, s],
      [27n, r, s, 1n], // chain id given, v not EIP-155
      [27n, word(0n), s],
      [27n, r, word(0n)],
      [27n, word(N), s],
      [27n, r, word(N)],
      [27n, word(N + 1n), s],
      [27n, word(5n), s], // no point has x = 5
      [27n, word(2n ** 256n - 1n), s],
    ];
    for (const [v, rr, ss, chainId] of cases) expect(both(h, v, rr, ss, chainId)).toEqual(['throws', 'throws']);
    // Short r and s are left-padded, as there.
    const [a, b] = both(h, 27n, word(1n).subarray(31), s);
    expect(a).toBe(b);
  });
});
