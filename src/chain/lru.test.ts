import { describe, expect, it } from 'vitest';
import { LruCache } from './lru.js';

describe('LruCache', () => {
  it('evicts the least recently used entry past the entry cap', () => {
    const lru = new LruCache<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect([lru.get('a'), lru.get('c'), lru.size]).toEqual([1, 3, 2]);
  });

  it('with a weight budget, evicts oldest entries until the total fits, keeping at least the newest', () => {
    const lru = new LruCache<string, string>(100, { maxWeight: 10, weigh: (v) => v.length });
    lru.set('a', 'xxxx'); // 4
    lru.set('b', 'yyyy'); // 8
    lru.set('a', 'xx'); // replacing a: 2 + 4 = 6, a is newest
    lru.set('c', 'zzzz'); // 10: fits
    expect(lru.size).toBe(3);
    lru.set('d', 'w'); // 11 > 10: b (oldest) goes → 7
    expect([lru.get('b'), lru.get('a'), lru.get('c'), lru.get('d')]).toEqual([undefined, 'xx', 'zzzz', 'w']);
    lru.set('e', 'a'.repeat(50)); // alone over budget: everything older goes, e stays
    expect([lru.size, lru.get('e')?.length]).toEqual([1, 50]);
    lru.clear();
    lru.set('f', 'ffffffffff'); // 10 fits after clear reset the total
    lru.set('g', ''); // 10 still fits
    expect(lru.size).toBe(2);
  });
});
