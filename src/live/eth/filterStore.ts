import { FilterNotFoundError, TooManyFiltersError } from '../errors.js';
import type { ChainFeed, ChainUpdate } from './chainFeed.js';
import { newId } from './ids.js';
import type { LiveLogFilter } from './liveLogFilter.js';
import type { PendingSource } from './pendingRelay.js';

/**
 * The polled filters of one network (`eth_newFilter`, `eth_newBlockFilter`): each collects what
 * the chain feed announces until `eth_getFilterChanges` takes it.
 * - A block filter collects the hashes of blocks that joined the canonical chain, oldest first.
 * - A pending-transaction filter collects the hashes the pending relay brings from the followed
 *   node (`pendingRelay.ts`).
 * - A log filter collects matching logs: after a reorganisation, first the dropped blocks' logs
 *   with `removed: true` (newest first, as the `logs` subscription sends them), then the new ones.
 * - A filter belongs to the API key that made it: any other key is told `filter not found`, as
 *   if it did not exist (ids are random, so one key cannot find another's).
 * - A filter nobody polls for `timeoutMs` is removed (geth's deadline; Infura's figure), checked
 *   at each use and by a sweep, with the store's clock (injectable for tests).
 * - Bounds: `maxPerKey` filters a key may hold; `maxChanges` items one filter may hold between
 *   polls. A filter that passes it is removed, and its next poll is `filter not found`, so the
 *   client makes a new one and reads the gap with eth_getLogs: a filter nobody reads cannot
 *   grow without bound, and a client never silently misses logs.
 * The store is generic over what `methods/` gives it: `C`, a log filter's criteria (kept for
 * eth_getFilterLogs), and `L`, a rendered log (the feed's, see `ChainRenderer`).
 */

export interface FilterLimits {
  maxPerKey: number;
  timeoutMs: number;
  maxChanges: number;
}

interface BaseFilter {
  readonly id: string;
  readonly keyId: string;
  lastPoll: number;
  /** Stops what feeds it (pending transactions). */
  stop?: () => void;
}

export interface PendingFilter extends BaseFilter {
  readonly kind: 'pending';
  changes: string[];
}

export interface BlockFilter extends BaseFilter {
  readonly kind: 'blocks';
  changes: string[];
}

export interface LogFilter<C, L> extends BaseFilter {
  readonly kind: 'logs';
  readonly criteria: C;
  readonly live: LiveLogFilter;
  changes: L[];
}

export type Filter<C, L> = BlockFilter | LogFilter<C, L> | PendingFilter;

/** What eth_getFilterLogs needs of a filter. */
export type FilterView<C> = { readonly kind: 'blocks' | 'pending' } | { readonly kind: 'logs'; readonly criteria: C };

/**
 * The polled filters of a network as the filter methods use them: this store (filters held in
 * this process), or `SharedFilterStore` (in Redis, shared by replicas).
 */
export interface PolledFilters<C, L> {
  /** Filters held in this process. */
  readonly size: number;
  installBlocks(keyId: string): string | Promise<string>;
  installLogs(keyId: string, criteria: C, live: LiveLogFilter): string | Promise<string>;
  installPending(keyId: string, source: PendingSource): Promise<string>;
  get(keyId: string, id: string): FilterView<C> | Promise<FilterView<C>>;
  takeChanges(keyId: string, id: string): string[] | L[] | Promise<string[] | L[]>;
  uninstall(keyId: string, id: string): boolean | Promise<boolean>;
  close(): void;
}

/** The polled filters of one network, held in this process; see the module comment. */
export class FilterStore<C, L> implements PolledFilters<C, L> {
  private readonly filters = new Map<string, Filter<C, L>>();
  private readonly perKey = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    feed: ChainFeed<L>,
    private readonly limits: FilterLimits,
    private readonly now: () => number = Date.now,
  ) {
    feed.listen((update) => this.collect(update));
    // The sweep only frees memory: every use checks the deadline itself.
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, Math.max(1000, limits.timeoutMs / 4)));
    this.sweeper.unref();
  }

  /** Installed filters, over every key. */
  get size(): number {
    return this.filters.size;
  }

  installBlocks(keyId: string): string {
    return this.add({ id: newId(), keyId, lastPoll: this.now(), kind: 'blocks', changes: [] });
  }

  installLogs(keyId: string, criteria: C, live: LiveLogFilter): string {
    return this.add({ id: newId(), keyId, lastPoll: this.now(), kind: 'logs', criteria, live, changes: [] });
  }

  /** A pending-transaction filter fed by `source`; rejects as the source does when it has nothing to relay. */
  async installPending(keyId: string, source: PendingSource): Promise<string> {
    this.checkCap(keyId);
    const filter: PendingFilter = { id: newId(), keyId, lastPoll: this.now(), kind: 'pending', changes: [] };
    filter.stop = await source.listen((hashes) => {
      filter.changes.push(...hashes);
      if (filter.changes.length > this.limits.maxChanges) this.remove(filter);
    });
    try {
      return this.add(filter);
    } catch (err) {
      filter.stop();
      throw err;
    }
  }

  /** The filter `id` of `keyId`, its deadline renewed; throws {@link FilterNotFoundError}. */
  get(keyId: string, id: string): Filter<C, L> {
    const filter = this.filters.get(id);
    if (filter === undefined || filter.keyId !== keyId) throw new FilterNotFoundError();
    if (this.expired(filter)) {
      this.remove(filter);
      throw new FilterNotFoundError();
    }
    filter.lastPoll = this.now();
    return filter;
  }

  /** What the filter collected since the last poll (and forgets it). */
  takeChanges(keyId: string, id: string): string[] | L[] {
    const filter = this.get(keyId, id);
    const out = filter.changes;
    filter.changes = [];
    return out;
  }

  /** Removes the filter `id` of `keyId`; false when that key has none (geth answers false, not an error). */
  uninstall(keyId: string, id: string): boolean {
    const filter = this.filters.get(id);
    if (filter === undefined || filter.keyId !== keyId) return false;
    this.remove(filter);
    return !this.expired(filter);
  }

  /** Removes every filter past its deadline. */
  sweep(): void {
    for (const filter of [...this.filters.values()]) if (this.expired(filter)) this.remove(filter);
  }

  /** Stops the sweep and the filters' feeds (the network closes). */
  close(): void {
    clearInterval(this.sweeper);
    for (const filter of this.filters.values()) filter.stop?.();
  }

  private checkCap(keyId: string): void {
    if ((this.perKey.get(keyId) ?? 0) < this.limits.maxPerKey) return;
    // Expired filters do not count against the key.
    this.sweep();
    if ((this.perKey.get(keyId) ?? 0) >= this.limits.maxPerKey) {
      throw new TooManyFiltersError(this.limits.maxPerKey);
    }
  }

  private add(filter: Filter<C, L>): string {
    this.checkCap(filter.keyId);
    this.filters.set(filter.id, filter);
    this.perKey.set(filter.keyId, (this.perKey.get(filter.keyId) ?? 0) + 1);
    return filter.id;
  }

  private remove(filter: Filter<C, L>): void {
    filter.stop?.();
    if (!this.filters.delete(filter.id)) return;
    const held = (this.perKey.get(filter.keyId) ?? 1) - 1;
    if (held === 0) this.perKey.delete(filter.keyId);
    else this.perKey.set(filter.keyId, held);
  }

  private expired(filter: Filter<C, L>): boolean {
    return this.now() - filter.lastPoll > this.limits.timeoutMs;
  }

  private async collect(update: ChainUpdate<L>): Promise<void> {
    if (this.filters.size === 0) return;
    const now = this.now();
    const filters = [...this.filters.values()].filter((f) => now - f.lastPoll <= this.limits.timeoutMs);
    const blockFilters = filters.filter((f): f is BlockFilter => f.kind === 'blocks');
    for (const block of update.added) for (const f of blockFilters) f.changes.push(block.hashHex);
    const logFilters = filters.filter((f): f is LogFilter<C, L> => f.kind === 'logs');
    if (logFilters.length > 0) {
      for (const block of update.removed) await this.collectLogs(logFilters, block, true);
      for (const block of update.added) await this.collectLogs(logFilters, block, false);
    }
    for (const f of filters) if (f.changes.length > this.limits.maxChanges) this.remove(f);
  }

  private async collectLogs(filters: LogFilter<C, L>[], block: ChainUpdate<L>['added'][number], removed: boolean): Promise<void> {
    const candidates = filters.filter((f) => f.live.mayMatchBlock(block.header));
    if (candidates.length === 0) return;
    const logs = await block.logs();
    for (let i = 0; i < logs.length; i++) {
      const log = logs[removed ? logs.length - 1 - i : i];
      for (const f of candidates) if (f.live.matches(log.log)) f.changes.push(log.rendered(removed));
    }
  }
}
