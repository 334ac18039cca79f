import { quoteString } from '../codec/quote.js';
import { DomainError } from '../errors/domainError.js';

/**
 * Starknet field elements ("felts"): parsing, normalisation and numeric comparison.
 *
 * A felt is an integer in [0, P) with P = 2^251 + 17·2^192 + 1, the STARK prime
 * (starkware-libs/starknet-specs `api/starknet_api_openrpc.json`, schema FELT). The spec writes
 * felts as `0x` + at most 63 hex digits without leading zeros; inputs are accepted more
 * leniently (1..64 digits, leading zeros, upper-case digits) and compared by value, so
 * `0x01` and `0x1` are the same felt. Stored strings are kept verbatim for output.
 *
 * Every function here works on strings: the canonical internal form is 64 lower-case hex digits
 * ("hex64"), whose lexicographic order is the numeric order. Index keys use its 32 bytes.
 */

/** The STARK prime: every felt is smaller. */
export const FELT_PRIME = 2n ** 251n + 17n * 2n ** 192n + 1n;

/** {@link FELT_PRIME} as 64 lower-case hex digits, for range checks by string comparison. */
const PRIME_HEX64 = FELT_PRIME.toString(16).padStart(64, '0');

const FELT_SYNTAX = /^0x[0-9a-fA-F]{1,64}$/;

/** A string that is not a felt; the message says why (it becomes a -32602 detail). */
export class FeltError extends DomainError {
  override readonly name = 'FeltError';
}

/**
 * Validates a felt and returns its canonical form: 64 lower-case hex digits, no prefix.
 * Throws {@link FeltError} for anything else (missing `0x`, no digits, more than 64 digits,
 * non-hex characters, a value ≥ P).
 */
export function feltToHex64(input: string): string {
  if (typeof input !== 'string') throw new FeltError('felt must be a string');
  if (!FELT_SYNTAX.test(input)) {
    if (!input.startsWith('0x')) throw new FeltError(`invalid felt ${quoteString(input)}: want 0x followed by 1 to 64 hex digits`);
    if (input.length === 2) throw new FeltError('invalid felt "0x": no digits');
    if (input.length > 66 && /^0x[0-9a-fA-F]+$/.test(input)) throw new FeltError(`invalid felt ${quoteString(input)}: more than 64 hex digits`);
    throw new FeltError(`invalid felt ${quoteString(input)}: not hexadecimal`);
  }
  const hex64 = input.slice(2).toLowerCase().padStart(64, '0');
  if (hex64 >= PRIME_HEX64) throw new FeltError(`invalid felt ${quoteString(input)}: not below the field prime`);
  return hex64;
}

/** True when `input` is a felt string {@link feltToHex64} accepts. */
export function isFelt(input: unknown): input is string {
  if (typeof input !== 'string' || !FELT_SYNTAX.test(input)) return false;
  return input.slice(2).toLowerCase().padStart(64, '0') < PRIME_HEX64;
}

/** A validated felt as 32 big-endian bytes (the form used inside index keys). */
export function feltToBytes(input: string): Uint8Array {
  return hex64ToBytes(feltToHex64(input));
}

/** 64 hex digits → 32 bytes. The caller has validated the digits. */
export function hex64ToBytes(hex64: string): Uint8Array {
  return Buffer.from(hex64, 'hex');
}

/** 32 bytes → 64 lower-case hex digits. */
export function bytesToHex64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/**
 * The canonical hex64 of a felt that is already known to be valid (a stored value): no checks,
 * just prefix removal, lower-casing and padding. Used on hot paths (filter matching).
 */
export function trustedFeltToHex64(felt: string): string {
  const digits = felt.slice(2);
  return (digits.length === 64 ? digits : digits.padStart(64, '0')).toLowerCase();
}

/** The spec's canonical spelling of a felt: `0x`, lower-case, no leading zeros (`0x0` for zero). */
export function normalizeFelt(input: string): string {
  const stripped = feltToHex64(input).replace(/^0+/, '');
  return `0x${stripped === '' ? '0' : stripped}`;
}

/** Numeric comparison of two felts (-1, 0, 1); both must be valid. */
export function compareFelts(a: string, b: string): number {
  const x = feltToHex64(a);
  const y = feltToHex64(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** True when two felt strings denote the same value (`0x01` equals `0x1`). */
export function feltsEqual(a: string, b: string): boolean {
  return feltToHex64(a) === feltToHex64(b);
}
