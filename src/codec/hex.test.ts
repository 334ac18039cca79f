import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bigIntToQuantity, bytesToData, dataToBytes, hexDigitsToBytes, quantityToBigInt } from './hex.js';

describe('quantity', () => {
  it('encodes minimal hex', () => {
    expect(bigIntToQuantity(0n)).toBe('0x0');
    expect(bigIntToQuantity(436n)).toBe('0x1b4');
  });
  it('decodes like geth hexutil.Big', () => {
    expect(quantityToBigInt('0x1b4')).toBe(436n);
    expect(quantityToBigInt('0x0')).toBe(0n);
  });
  it.each([
    ['', 'empty hex string'],
    ['12', 'hex string without 0x prefix'],
    ['0x', 'hex string "0x"'],
    ['0x01', 'hex number with leading zero digits'],
    ['0xzz', 'invalid hex string'],
    [`0x1${'0'.repeat(64)}`, 'hex number > 256 bits'],
  ])('rejects %j with %s', (input, message) => {
    expect(() => quantityToBigInt(input)).toThrow(message);
  });
});

describe('data', () => {
  it('round-trips', () => {
    expect(bytesToData(dataToBytes('0x00ff10'))).toBe('0x00ff10');
    expect(bytesToData(new Uint8Array())).toBe('0x');
  });
  it('rejects odd length', () => {
    expect(() => dataToBytes('0xabc')).toThrow('hex string of odd length');
  });
});

describe('hexDigitsToBytes', () => {
  it("decodes every byte value, in either case, as Node's hex decoder does", () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    expect(hexDigitsToBytes(all.toString('hex'))).toEqual(new Uint8Array(all));
    expect(hexDigitsToBytes(all.toString('hex').toUpperCase())).toEqual(new Uint8Array(all));
    for (let i = 0; i < 50; i++) {
      const bytes = randomBytes(i);
      expect(Buffer.from(hexDigitsToBytes(bytes.toString('hex')))).toEqual(bytes);
    }
    expect(hexDigitsToBytes('')).toEqual(new Uint8Array());
    expect(hexDigitsToBytes('0aFf')).toEqual(new Uint8Array([0x0a, 0xff]));
  });
});
