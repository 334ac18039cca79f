/**
 * Go's `big.Float` text, for the one place a peer prints one on the wire: op-geth's pre-Ecotone
 * receipt field `l1FeeScalar` is `new(big.Float).Quo(scalar, 10⁶)` (`core/types/rollup_cost.go`,
 * `intToScaledFloat`) printed with `String()`, that is `Text('g', 10)` (`internal/ethapi/api.go`,
 * `marshalReceipt`). Reproduced exactly (golang/go `src/math/big/ftoa.go` and `decimal.go`): the
 * quotient rounded to the Float's precision in bits (to nearest, ties to even), its exact decimal
 * expansion rounded to the digits asked for, then `%e` or `%f` as `'g'` chooses.
 */

/** A decimal `0.digits × 10^exp` with no trailing zero digit (Go's `decimal`); zero is `digits` ''. */
interface Decimal {
  digits: string;
  exp: number;
}

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** `p / q` (both positive) rounded to `prec` bits, to nearest with ties to even: `mantissa × 2^-shift`. */
function roundedQuotient(p: bigint, q: bigint, prec: number): { mantissa: bigint; shift: number } {
  const top = 1n << BigInt(prec);
  let shift = prec - (bitLength(p) - bitLength(q));
  const divide = (s: number) => (s >= 0 ? { num: p << BigInt(s), den: q } : { num: p, den: q << BigInt(-s) });
  let { num, den } = divide(shift);
  if (num / den >= top) {
    shift -= 1;
    ({ num, den } = divide(shift));
  }
  let mantissa = num / den;
  const twice = 2n * (num % den);
  if (twice > den || (twice === den && (mantissa & 1n) === 1n)) mantissa += 1n;
  if (mantissa === top) {
    mantissa >>= 1n;
    shift -= 1;
  }
  return { mantissa, shift };
}

/** The exact decimal of `mantissa × 2^-shift`. */
function toDecimal(mantissa: bigint, shift: number): Decimal {
  if (mantissa === 0n) return { digits: '', exp: 0 };
  // m / 2^s = m·5^s / 10^s
  const text = shift > 0 ? (mantissa * 5n ** BigInt(shift)).toString() : (mantissa << BigInt(-shift)).toString();
  const exp = shift > 0 ? text.length - shift : text.length;
  return { digits: text.replace(/0+$/, ''), exp };
}

/** Go's `decimal.round(n)`: at most `n` digits, to nearest, an exact half to even. */
function roundDigits(d: Decimal, n: number): Decimal {
  if (n < 0 || n >= d.digits.length) return d;
  const next = d.digits[n];
  const half = next === '5' && n + 1 === d.digits.length;
  const up = half ? n > 0 && (Number(d.digits[n - 1]) & 1) === 1 : next >= '5';
  if (!up) {
    const digits = d.digits.slice(0, n).replace(/0+$/, '');
    return { digits, exp: digits === '' ? 0 : d.exp };
  }
  let i = n;
  while (i > 0 && d.digits[i - 1] === '9') i--;
  if (i === 0) return { digits: '1', exp: d.exp + 1 };
  return { digits: d.digits.slice(0, i - 1) + String(Number(d.digits[i - 1]) + 1), exp: d.exp };
}

/** Go's `fmtE`: `d.ddde±dd` with `prec` digits after the point. */
function fmtE(d: Decimal, prec: number): string {
  let out = d.digits[0] ?? '0';
  if (prec > 0) out += `.${d.digits.slice(1, prec + 1).padEnd(prec, '0')}`;
  const exp = d.digits === '' ? 0 : d.exp - 1;
  const magnitude = String(Math.abs(exp));
  return `${out}e${exp < 0 ? '-' : '+'}${magnitude.length < 2 ? `0${magnitude}` : magnitude}`;
}

/** Go's `fmtF`: the integer part, then `prec` digits after the point. */
function fmtF(d: Decimal, prec: number): string {
  const at = (i: number) => (i >= 0 && i < d.digits.length ? d.digits[i] : '0');
  let out = d.exp > 0 ? d.digits.slice(0, d.exp).padEnd(d.exp, '0') : '0';
  if (prec > 0) {
    out += '.';
    for (let i = 0; i < prec; i++) out += at(d.exp + i);
  }
  return out;
}

/**
 * `p / q` as Go prints `new(big.Float).SetPrec(precBits).Quo(p, q).Text('g', digits)` (p ≥ 0,
 * q > 0): the value rounded to `precBits` bits, then written with `digits` significant digits,
 * trailing zeros dropped, in `%e` form when its exponent is below -4 or at least the digits shown.
 */
export function goFloatText(p: bigint, q: bigint, precBits: number, digits: number): string {
  const { mantissa, shift } = p === 0n ? { mantissa: 0n, shift: 0 } : roundedQuotient(p, q, precBits);
  let prec = digits === 0 ? 1 : digits;
  const d = roundDigits(toDecimal(mantissa, shift), prec);
  let eprec = prec;
  if (eprec > d.digits.length && d.digits.length >= d.exp) eprec = d.digits.length;
  const exp = d.exp - 1;
  if (exp < -4 || exp >= eprec) {
    if (prec > d.digits.length) prec = d.digits.length;
    return fmtE(d, prec - 1);
  }
  if (prec > d.exp) prec = d.digits.length;
  return fmtF(d, Math.max(prec - d.exp, 0));
}

/**
 * A Bedrock/Regolith L1 fee scalar (an integer, 10⁶ = 1) as op-geth prints `l1FeeScalar`:
 * `scalar / 10⁶` as a `big.Float` whose precision is the larger of 64 bits and the scalar's bit
 * length (`SetInt`, then `Quo` at its operands' precision), in `Text('g', 10)`: 684000 → "0.684".
 */
export function l1FeeScalarText(scalar: bigint): string {
  return goFloatText(scalar, 1_000_000n, Math.max(64, bitLength(scalar)), 10);
}
