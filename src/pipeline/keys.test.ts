import { describe, expect, it } from 'vitest';
import { type KeyPolicy, KeyRegistry } from './keys.js';

const policy = (key: string, id = key): KeyPolicy => ({ key, id }) as KeyPolicy;
const keyOf = (i: number) => `k${i.toString(36)}-${'0123456789abcdef'.repeat(2)}`;

/** Nanoseconds per lookup of `key`, the median of five rounds of `n`. */
function lookupNs(registry: KeyRegistry, key: string, n = 20_000): number {
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) registry.lookup(key);
    rounds.push(Number(process.hrtime.bigint() - t0) / n);
  }
  return rounds.sort((a, b) => a - b)[2]!;
}

describe('KeyRegistry', () => {
  const many = new KeyRegistry(Array.from({ length: 1000 }, (_, i) => policy(keyOf(i), `id${i}`)));

  it('finds each of 1,000 keys, and nothing for a key that is not configured', () => {
    for (let i = 0; i < 1000; i++) expect(many.lookup(keyOf(i))?.id).toBe(`id${i}`);
    const one = keyOf(7);
    for (const other of [one.slice(0, -1), `${one}x`, one.toUpperCase(), '', 'x'.repeat(128), 'x'.repeat(129), `${one}\u0000`]) {
      expect(many.lookup(other)).toBeUndefined();
    }
  });

  it('refuses a key longer than the longest configured (and 128 bytes) before looking', () => {
    const long = 'y'.repeat(200);
    const registry = new KeyRegistry([policy('short'), policy(long)]);
    expect(registry.lookup(long)?.key).toBe(long);
    expect(registry.lookup('y'.repeat(201))).toBeUndefined();
  });

  it('a reload replaces the keys', () => {
    const registry = new KeyRegistry([policy('a'), policy('b')]);
    registry.replace([policy('b'), policy('c')]);
    expect([registry.lookup('a'), registry.lookup('b')?.key, registry.lookup('c')?.key]).toEqual([undefined, 'b', 'c']);
  });

  it('a lookup costs about the same with 1,000 keys as with 2 (a scan of every key cost ~270x)', () => {
    const two = new KeyRegistry([policy(keyOf(0)), policy(keyOf(1))]);
    lookupNs(two, keyOf(1));
    lookupNs(many, keyOf(999));
    const small = lookupNs(two, keyOf(1));
    const large = lookupNs(many, keyOf(999));
    expect(large).toBeLessThan(small * 5);
  });
});
