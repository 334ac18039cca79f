/**
 * A bounded cache that keeps recently used entries, in two generations: entries are written to
 * the young generation; when it reaches half the cap (in entries, or in weight with a `weigh`
 * function), it becomes the old generation and the previous old one is dropped. A hit in the old
 * generation moves the entry back to the young one.
 *
 * So the most recently used `max / 2` entries (or `maxWeight / 2`) are always kept, at most `max`
 * (`maxWeight`, plus one entry that alone exceeds half of it) are held, and a hit on a young entry
 * costs one Map lookup — a strict LRU would reorder its map on every hit, which showed as a few µs
 * a request on the hottest paths (every request resolves a header and reads cached state).
 */
/** What a cache reports to the metrics. */
export interface CacheStats {
  hits: number;
  misses: number;
  entries: number;
}

export class LruCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private youngWeight = 0;
  /** Weights of the entries of both generations, when a budget is set. */
  private readonly weights = new Map<K, number>();
  private readonly maxYoung: number;
  /** Lookups that found their entry, and lookups that did not (for the cache metrics). */
  hits = 0;
  misses = 0;
  private readonly maxYoungWeight: number;

  constructor(
    max: number,
    private readonly budget?: { maxWeight: number; weigh: (value: V) => number },
  ) {
    this.maxYoung = Math.max(1, Math.floor(max / 2));
    this.maxYoungWeight = budget ? budget.maxWeight / 2 : Number.POSITIVE_INFINITY;
  }

  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) {
      this.hits++;
      return value;
    }
    const older = this.old.get(key);
    if (older === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.old.delete(key);
    this.addYoung(key, older, this.budget ? (this.weights.get(key) ?? 0) : 0);
    return older;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const weight = this.budget ? this.budget.weigh(value) : 0;
    if (this.budget) this.weights.set(key, weight);
    this.addYoung(key, value, weight);
  }

  private addYoung(key: K, value: V, weight: number): void {
    this.young.set(key, value);
    this.youngWeight += weight;
    if (this.young.size >= this.maxYoung || this.youngWeight >= this.maxYoungWeight) this.rotate();
  }

  /** The young generation becomes the old one; the old one is dropped. */
  private rotate(): void {
    if (this.budget) for (const key of this.old.keys()) this.weights.delete(key);
    this.old = this.young;
    this.young = new Map();
    this.youngWeight = 0;
  }

  private delete(key: K): void {
    if (this.young.delete(key)) this.youngWeight -= this.weights.get(key) ?? 0;
    else if (!this.old.delete(key)) return;
    this.weights.delete(key);
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
    this.weights.clear();
    this.youngWeight = 0;
  }

  /** Hits, misses and entries, for the cache metrics. */
  stats(): CacheStats {
    return { hits: this.hits, misses: this.misses, entries: this.young.size + this.old.size };
  }

  get size(): number {
    return this.young.size + this.old.size;
  }
}
