import { describe, expect, it } from 'vitest';
import { goFloatText, l1FeeScalarText } from './goFloat.js';

describe('goFloatText', () => {
  // Go's own expectations of `Float.Text('g', digits)` (golang/go
  // 01ce9cb29c22af562e1dfc5ab717ceaa979265ee, src/math/big/floatconv_test.go): TestFloatText
  // formats float64 values (a decimal literal rounded to 53 bits, as the quotient p/q is at 53
  // bits), TestFloatFormat strings parsed at the precision given.
  it.each([
    // TestFloatText, 'g' (value as p/q, 53 bits)
    [1n, 1n, 53, 5, '1'],
    [400n, 1n, 53, 2, '4e+02'],
    [40n, 1n, 53, 2, '40'],
    [4n, 1n, 53, 2, '4'],
    [4n, 10n, 53, 2, '0.4'],
    [4n, 100n, 53, 2, '0.04'],
    [4n, 1_000n, 53, 2, '0.004'],
    [4n, 10_000n, 53, 2, '0.0004'],
    [4n, 100_000n, 53, 2, '4e-05'],
    [4n, 1_000_000n, 53, 2, '4e-06'],
    [0n, 1n, 53, 5, '0'],
    [12n, 1n, 53, 5, '12'],
    [123_456_700n, 1n, 53, 5, '1.2346e+08'],
    [1_234_500n, 1n, 53, 5, '1.2345e+06'],
    [10n ** 23n, 1n, 53, 17, '9.9999999999999992e+22'],
    // TestFloatFormat, 'g'
    [1459n, 1000n, 100, 0, '1'],
    [2459n, 1000n, 100, 1, '2'],
    [3459n, 1000n, 100, 2, '3.5'],
    [4459n, 1000n, 100, 3, '4.46'],
    [5459n, 1000n, 100, 4, '5.459'],
    [1459n, 1n, 53, 0, '1e+03'],
    [2459n, 1n, 53, 1, '2e+03'],
    [3459n, 1n, 53, 2, '3.5e+03'],
    [4459n, 1n, 53, 3, '4.46e+03'],
    [5459n, 1n, 53, 4, '5459'],
    [3n, 1n, 10, 40, '3'],
    [3n * 10n ** 40n, 1n, 100, 40, '3e+40'],
  ])('%s / %s at %s bits, %s digits: %s', (p, q, bits, digits, want) => {
    expect(goFloatText(p, q, bits, digits)).toBe(want);
  });
});

describe('l1FeeScalarText', () => {
  it("OP Mainnet's Regolith scalar 684000 as op-geth printed it: 0.684", () => {
    // A real receipt of OP Mainnet block 0x6c9e503 (quiknode-labs/quickalerts-examples
    // cfa9e8901e3fd63a9af7cb1533aaa7e912791d34, examples/eas-attestations.md): "l1FeeScalar":"0.684".
    expect(l1FeeScalarText(684_000n)).toBe('0.684');
  });
  it('10⁶ is 1; 0 is 0', () => {
    expect(l1FeeScalarText(1_000_000n)).toBe('1');
    expect(l1FeeScalarText(0n)).toBe('0');
  });
});
