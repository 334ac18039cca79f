import { RLP } from '@ethereumjs/rlp';
import { describe, expect, it } from 'vitest';
import { rlpPayload } from './rlpPrefix.js';

/** Items encoded by @ethereumjs/rlp (an independent encoder): every prefix form. */
describe('rlpPayload', () => {
  const bytes = (n: number, fill = 0xab) => new Uint8Array(n).fill(fill);
  it.each([
    ['a single byte < 0x80', Uint8Array.from([0x7f])],
    ['an empty string', new Uint8Array()],
    ['a one-byte string ≥ 0x80', Uint8Array.from([0x80])],
    ['a 55-byte string (longest short form)', bytes(55)],
    ['a 56-byte string (long form, 1 length byte)', bytes(56)],
    ['a 70,000-byte string (3 length bytes)', bytes(70_000)],
  ])('%s: the payload is the string itself', (_name, value) => {
    const encoded = RLP.encode(value);
    const [start, end] = rlpPayload(encoded, 0);
    expect(end).toBe(encoded.length);
    expect(encoded.subarray(start, end)).toEqual(value);
  });

  it.each([
    ['an empty list', []],
    ['a short list', [bytes(10), bytes(20)]],
    ['a long list', [bytes(60), [bytes(1000)], new Uint8Array()]],
  ])('%s: the payload is the encoded items', (_name, value) => {
    const encoded = RLP.encode(value as Uint8Array[]);
    const [start, end] = rlpPayload(encoded, 0);
    expect(end).toBe(encoded.length);
    const items = (value as Uint8Array[]).map((v) => RLP.encode(v));
    expect(encoded.subarray(start, end)).toEqual(Uint8Array.from(items.flatMap((i) => [...i])));
  });

  it('reads at an offset, and reports truncation through `end`', () => {
    const two = Uint8Array.from([...RLP.encode(bytes(3)), ...RLP.encode(bytes(100))]);
    expect(rlpPayload(two, 4)).toEqual([6, 106]);
    expect(rlpPayload(two.subarray(0, 50), 4)[1]).toBeGreaterThan(50); // payload cut off
    expect(rlpPayload(Uint8Array.from([0xb9, 0x01]), 0)[1]).toBeNaN(); // length bytes cut off
    expect(rlpPayload(two, two.length)[1]).toBeNaN(); // nothing at the offset
  });
});
