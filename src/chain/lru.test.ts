import { describe, expect, it } from 'vitest';
import { LruCache } from './lru.js';

describe('LruCache', () => {
  it('keeps the max/2 most recently used entries, holds at most max, and a hit keeps an old entry', () => {
    const lru = new LruCache<string, number>(4); // generations of 2
    lru.set('a', 1);
    lru.set('b', 2); // young full → a, b become the old generation
    lru.set('c', 3);
    expect(lru.size).toBe(3);
    expect(lru.get('a')).toBe(1); // hit in the old generation: a moves to the young one (a, c) → rotation
    lru.set('d', 4); // b, unused since, went with that rotation; c and a are old now, d young
    expect(lru.get('b')).toBeUndefined();
    expect([lru.get('d'), lru.get('a')]).toEqual([4, 1]); // the two most recently used
    for (let i = 0; i < 100; i++) lru.set(`k${i}`, i);
    expect(lru.size).toBeLessThanOrEqual(4);
    expect([lru.get('k99'), lru.get('k98')]).toEqual([99, 98]); // the two most recent always stay
  });

  it('replacing a value keeps one entry; clear empties both generations', () => {
    const lru = new LruCache<string, number>(10);
    lru.set('a', 1);
    lru.set('a', 2);
    expect([lru.size, lru.get('a')]).toEqual([1, 2]);
    for (let i = 0; i < 7; i++) lru.set(`k${i}`, i); // rotates once
    lru.clear();
    expect([lru.size, lru.get('a'), lru.get('k6')]).toEqual([0, undefined, undefined]);
  });

  it('with a weight budget, a generation turns over at half the weight; the newest entry always stays', () => {
    const lru = new LruCache<string, string>(100, { maxWeight: 10, weigh: (v) => v.length });
    lru.set('a', 'xx'); // young 2
    lru.set('b', 'yy'); // young 4
    lru.set('a', 'x'); // replaced: young 3
    lru.set('c', 'zz'); // young 5 ≥ 5 → old {a, b, c} (5), young empty
    expect(lru.size).toBe(3);
    lru.set('d', 'wwww'); // young 4
    lru.set('e', 'v'); // young 5 → rotation: {a, b, c} dropped, old {d, e}
    expect([lru.get('a'), lru.get('b'), lru.get('c')]).toEqual([undefined, undefined, undefined]);
    expect([lru.get('d'), lru.get('e')]).toEqual(['wwww', 'v']);
    lru.set('f', 'q'.repeat(50)); // alone over budget: it rotates into the old generation and stays
    expect(lru.get('f')?.length).toBe(50);
    lru.set('g', 'g');
    expect([lru.get('g'), lru.get('f')?.length]).toEqual(['g', 50]);
  });
});
