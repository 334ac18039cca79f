/**
 * A small least-recently-used map: `get` refreshes an entry, `set` evicts the oldest past `max`
 * entries, or, with a `weigh` function, past `maxWeight` in total (e.g. bytes).
 */
export class LruCache<K, V> {
  private readonly map = new Map<K, V>();
  private readonly weights = new Map<K, number>();
  private totalWeight = 0;
  constructor(
    private readonly max: number,
    private readonly budget?: { maxWeight: number; weigh: (value: V) => number },
  ) {}

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.remove(key);
    this.map.set(key, value);
    if (this.budget) {
      const weight = this.budget.weigh(value);
      this.weights.set(key, weight);
      this.totalWeight += weight;
      while (this.map.size > 1 && this.totalWeight > this.budget.maxWeight) this.remove(this.map.keys().next().value as K);
    }
    if (this.map.size > this.max) this.remove(this.map.keys().next().value as K);
  }

  private remove(key: K): void {
    if (!this.map.delete(key) || !this.budget) return;
    this.totalWeight -= this.weights.get(key) ?? 0;
    this.weights.delete(key);
  }

  clear(): void {
    this.map.clear();
    this.weights.clear();
    this.totalWeight = 0;
  }

  get size(): number {
    return this.map.size;
  }
}
