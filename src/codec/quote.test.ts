import { describe, expect, it } from 'vitest';
import { cutString, MAX_QUOTED_CHARS, quoteString, quoteValue } from './quote.js';

describe('quoting values in error messages', () => {
  it('short strings are quoted whole, as geth %q does', () => {
    expect(quoteString('0xasdf')).toBe('"0xasdf"');
    expect(quoteString('a"b')).toBe('"a\\"b"');
  });
  it(`long strings are cut to ${MAX_QUOTED_CHARS} characters`, () => {
    const long = 'x'.repeat(1 << 20);
    expect(quoteString(long)).toBe(`"${'x'.repeat(80)}"…`);
    expect(cutString(long)).toBe(`${'x'.repeat(80)}…`);
    expect(cutString('limit')).toBe('limit');
  });
  it('numbers, booleans and null as written (bounded); arrays and objects by kind, never serialised', () => {
    expect(quoteValue(-1)).toBe('-1');
    expect(quoteValue(Number.POSITIVE_INFINITY)).toBe('Infinity');
    expect(quoteValue(true)).toBe('true');
    expect(quoteValue(null)).toBe('null');
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(quoteValue(deep)).toBe('array');
    expect(quoteValue({ a: 1 })).toBe('object');
  });
});
