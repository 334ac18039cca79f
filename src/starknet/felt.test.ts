import { describe, expect, it } from 'vitest';
import { bytesToHex64, compareFelts, FELT_PRIME, FeltError, feltsEqual, feltToBytes, feltToHex64, isFelt, normalizeFelt } from './felt.js';

const P_HEX = `0x${FELT_PRIME.toString(16)}`;
const P_MINUS_1 = `0x${(FELT_PRIME - 1n).toString(16)}`;

describe('felt', () => {
  it('the prime is 2^251 + 17·2^192 + 1', () => {
    expect(P_HEX).toBe('0x800000000000011000000000000000000000000000000000000000000000001');
  });

  it.each([
    ['0x0', '0'.repeat(64)],
    ['0x1', `${'0'.repeat(63)}1`],
    ['0x000001', `${'0'.repeat(63)}1`],
    ['0xAbC', `${'0'.repeat(61)}abc`],
    [P_MINUS_1, `0${P_MINUS_1.slice(2)}`],
    [`0x${'0'.repeat(64)}`, '0'.repeat(64)],
  ])('accepts %s', (input, hex64) => {
    expect(feltToHex64(input)).toBe(hex64);
    expect(isFelt(input)).toBe(true);
    expect(bytesToHex64(feltToBytes(input))).toBe(hex64);
  });

  it.each([
    ['no prefix', '1234', 'want 0x followed by 1 to 64 hex digits'],
    ['upper-case prefix', '0X12', 'want 0x followed by 1 to 64 hex digits'],
    ['no digits', '0x', 'no digits'],
    ['non-hex', '0xg', 'not hexadecimal'],
    ['sign', '-0x1', 'want 0x'],
    ['65 digits', `0x${'0'.repeat(65)}`, 'more than 64 hex digits'],
    ['the prime', P_HEX, 'not below the field prime'],
    ['2^252', `0x1${'0'.repeat(63)}`, 'not below the field prime'],
    ['2^256 - 1', `0x${'f'.repeat(64)}`, 'not below the field prime'],
    ['space', '0x 1', 'not hexadecimal'],
  ])('rejects %s', (_name, input, message) => {
    expect(() => feltToHex64(input)).toThrow(FeltError);
    expect(() => feltToHex64(input)).toThrow(message);
    expect(isFelt(input)).toBe(false);
  });

  it('rejects non-strings', () => {
    expect(isFelt(1)).toBe(false);
    expect(isFelt(null)).toBe(false);
    expect(() => feltToHex64(1 as unknown as string)).toThrow(FeltError);
  });

  it('compares by value, not by spelling', () => {
    expect(feltsEqual('0x01', '0x1')).toBe(true);
    expect(feltsEqual('0xaB', '0x00AB')).toBe(true);
    expect(compareFelts('0x2', '0x10')).toBe(-1);
    expect(compareFelts('0x0010', '0x2')).toBe(1);
    expect(compareFelts('0x10', '0x010')).toBe(0);
    expect(normalizeFelt('0x00ABc')).toBe('0xabc');
    expect(normalizeFelt('0x000')).toBe('0x0');
  });
});
