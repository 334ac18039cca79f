import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import type { Redis } from 'ioredis';
import { headChange } from '../../chain/headChange.js';
import type { ChainStore, Head } from '../../chain/store.js';
import { bytesToData } from '../../codec/hex.js';
import { FilterContendedError, FilterNotFoundError, FilterStoreUnavailableError, NoHeadYetError, TooManyFiltersError } from '../errors.js';
import { type ChainFeed, MAX_BLOCKS_PER_UPDATE } from './chainFeed.js';
import type { FilterLimits, FilterStore, FilterView, PolledFilters } from './filterStore.js';
import { newId } from './ids.js';
import type { LiveLogFilter } from './liveLogFilter.js';
import type { PendingSource } from './pendingRelay.js';

/**
 * Block and log filters kept in Redis (`--redis`), so that a filter made through a load balancer
 * on one replica can be polled through any other, as behind Infura's. A filter is a record — its
 * key id, kind, criteria, and a cursor: the block its last poll reached, by number and hash —
 * under `<prefix>filter:<id>`, expiring `subscriptions.filterTimeoutMs` after its last use.
 *
 * A poll reads the changes from the cursor to the head of the replica that answers it (headChange:
 * the blocks that left the canonical chain, then those that joined), then moves the cursor with a
 * compare-and-set, so two polls at once (on two replicas) never deliver the same change twice:
 * the one that loses reads again from where the winner left the cursor.
 * - A replica behind the cursor answers no changes and leaves the cursor alone.
 * - A replica that does not hold the cursor's block (it never saw that branch) cannot say which
 *   logs were removed: the filter is dropped and the poll is `filter not found`, so the client
 *   makes a new filter and reads the gap with eth_getLogs, as after an overflow. Replicas follow
 *   the same upstream, so this needs a reorganisation seen by some replicas and not others.
 * - More than `subscriptions.filterMaxChanges` changes, or more than 1,024 blocks, since the last
 *   poll: dropped the same way.
 *
 * Pending-transaction filters stay on the replica that made them (each relays its own view of
 * the upstream's pool): route them with sticky sessions, or poll them over WebSocket.
 * Redis unreachable: filter calls fail with {@link FilterStoreUnavailableError}; nothing else is
 * affected.
 *
 * Log criteria (`C`) are stored in the form their {@link CriteriaCodec} gives (eth_newFilter's own
 * JSON: `methods/` supplies the codec), and logs are rendered by the chain feed's renderer.
 */

/** How log filter criteria are kept in Redis and matched again at each poll; given by `methods/`. */
export interface CriteriaCodec<C> {
  /** The criteria as a JSON value to store. */
  encode(criteria: C): unknown;
  /** A stored value back to criteria. */
  decode(stored: unknown): C;
  /** The filter that matches new blocks and logs against the criteria. */
  live(criteria: C): LiveLogFilter;
}

/** The record of a filter in Redis. */
interface FilterRecord {
  /** Key id of the owner. */
  k: string;
  t: 'blocks' | 'logs';
  /** Log criteria in the codec's JSON form (eth_newFilter's own). */
  c?: unknown;
  /** Cursor: number and hash of the last block delivered. */
  n: string;
  h: string;
}

/** Replaces the record only when it is still `old`: 1 done, 0 changed meanwhile, -1 gone. */
const COMPARE_AND_SET = `
local v = redis.call('GET', KEYS[1])
if not v then return -1 end
if v ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;

/** Tries of a poll that loses the compare-and-set to another poll of the same filter. */
const MAX_POLL_TRIES = 5;

/** Block and log filters in Redis, shared by replicas; see the module comment. */
export class SharedFilterStore<C, L> implements PolledFilters<C, L> {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    /** The network's feed: its store, and the renderer of a poll's logs. */
    private readonly feed: ChainFeed<L>,
    private readonly criteria: CriteriaCodec<C>,
    /** Pending-transaction filters, kept on this replica. */
    private readonly local: FilterStore<C, L>,
    private readonly limits: FilterLimits,
    private readonly now: () => number = Date.now,
  ) {}

  private get store(): ChainStore {
    return this.feed.store;
  }

  /** Filters held on this replica (pending-transaction ones); shared ones are counted in Redis. */
  get size(): number {
    return this.local.size;
  }

  async installBlocks(keyId: string): Promise<string> {
    return this.install(keyId, { k: keyId, t: 'blocks', ...(await this.cursor()) });
  }

  async installLogs(keyId: string, criteria: C): Promise<string> {
    return this.install(keyId, { k: keyId, t: 'logs', c: this.criteria.encode(criteria), ...(await this.cursor()) });
  }

  installPending(keyId: string, source: PendingSource): Promise<string> {
    return this.local.installPending(keyId, source);
  }

  async get(keyId: string, id: string): Promise<FilterView<C>> {
    const found = await this.read(keyId, id);
    if (found === undefined) return this.local.get(keyId, id);
    await this.touch(keyId, id, found.raw);
    return found.rec.t === 'logs' ? { kind: 'logs', criteria: this.criteria.decode(found.rec.c) } : { kind: 'blocks' };
  }

  async takeChanges(keyId: string, id: string): Promise<string[] | L[]> {
    for (let attempt = 0; attempt < MAX_POLL_TRIES; attempt++) {
      const found = await this.read(keyId, id);
      if (found === undefined) return this.local.takeChanges(keyId, id);
      const { rec, raw } = found;
      const head = await this.store.head();
      const cursor: Head = { number: BigInt(rec.n), hash: hexToBytes(rec.h as `0x${string}`) };
      if (head === undefined || cursor.number > head.number) {
        // This replica is behind the filter's last poll: nothing new here yet.
        await this.touch(keyId, id, raw);
        return [];
      }
      if ((await this.store.headerByHash(cursor.hash)) === undefined) return this.drop(keyId, id);
      const change = await headChange(this.store, cursor, head, MAX_BLOCKS_PER_UPDATE);
      if (change.truncated) return this.drop(keyId, id);
      const changes = rec.t === 'blocks' ? change.added.map((h) => bytesToData(h.hash())) : await this.logChanges(this.criteria.decode(rec.c), change);
      if (changes.length > this.limits.maxChanges) return this.drop(keyId, id);
      const next = JSON.stringify({ ...rec, n: head.number.toString(), h: bytesToHex(head.hash) });
      const swapped = await this.command(() => this.redis.eval(COMPARE_AND_SET, 1, this.filterKey(id), raw, next, this.limits.timeoutMs));
      if (swapped === 1) {
        await this.command(() => this.redis.zadd(this.ownerKey(keyId), 'XX', this.now() + this.limits.timeoutMs, id));
        return changes;
      }
      if (swapped === -1) throw new FilterNotFoundError();
      // Another poll moved the cursor meanwhile: read again from where it left it.
    }
    throw new FilterContendedError();
  }

  async uninstall(keyId: string, id: string): Promise<boolean> {
    const found = await this.read(keyId, id);
    if (found === undefined) return this.local.uninstall(keyId, id);
    await this.command(() => this.redis.multi().del(this.filterKey(id)).zrem(this.ownerKey(keyId), id).exec());
    return true;
  }

  close(): void {
    this.local.close();
  }

  private filterKey(id: string): string {
    return `${this.prefix}filter:${id}`;
  }

  private ownerKey(keyId: string): string {
    return `${this.prefix}filters:${keyId}`;
  }

  private async cursor(): Promise<{ n: string; h: string }> {
    const head = await this.store.head();
    if (head === undefined) throw new NoHeadYetError();
    return { n: head.number.toString(), h: bytesToHex(head.hash) };
  }

  private async install(keyId: string, rec: FilterRecord): Promise<string> {
    const owner = this.ownerKey(keyId);
    const now = this.now();
    // Filters past their deadline do not count against the key.
    const [, held] = (await this.command(() => this.redis.multi().zremrangebyscore(owner, '-inf', now).zcard(owner).exec())) as [unknown, [null, number]];
    if (held[1] >= this.limits.maxPerKey) {
      throw new TooManyFiltersError(this.limits.maxPerKey);
    }
    const id = newId();
    await this.command(() =>
      this.redis
        .multi()
        .set(this.filterKey(id), JSON.stringify(rec), 'PX', this.limits.timeoutMs)
        .zadd(owner, now + this.limits.timeoutMs, id)
        .pexpire(owner, this.limits.timeoutMs)
        .exec(),
    );
    return id;
  }

  /** The record of filter `id` when `keyId` owns it. */
  private async read(keyId: string, id: string): Promise<{ rec: FilterRecord; raw: string } | undefined> {
    if (!/^0x[0-9a-f]{1,64}$/.test(id)) return undefined;
    const raw = await this.command(() => this.redis.get(this.filterKey(id)));
    if (raw === null) return undefined;
    const rec = JSON.parse(raw) as FilterRecord;
    return rec.k === keyId ? { rec, raw } : undefined;
  }

  /** Renews the filter's deadline (a poll without changes). */
  private async touch(keyId: string, id: string, raw: string): Promise<void> {
    await this.command(() =>
      this.redis
        .multi()
        .eval(COMPARE_AND_SET, 1, this.filterKey(id), raw, raw, this.limits.timeoutMs)
        .zadd(this.ownerKey(keyId), 'XX', this.now() + this.limits.timeoutMs, id)
        .pexpire(this.ownerKey(keyId), this.limits.timeoutMs)
        .exec(),
    );
  }

  private async drop(keyId: string, id: string): Promise<never> {
    await this.command(() => this.redis.multi().del(this.filterKey(id)).zrem(this.ownerKey(keyId), id).exec());
    throw new FilterNotFoundError();
  }

  /** Matching logs: the removed blocks' (newest first, each block's last log first), then the added blocks'. */
  private async logChanges(criteria: C, change: Awaited<ReturnType<typeof headChange>>): Promise<L[]> {
    const live = this.criteria.live(criteria);
    const out: L[] = [];
    for (const [headers, removed] of [
      [change.removed, true],
      [change.added, false],
    ] as const) {
      for (const header of headers) {
        if (!live.mayMatchBlock(header)) continue;
        const logs = await this.feed.block(header).logs();
        for (let i = 0; i < logs.length; i++) {
          const log = logs[removed ? logs.length - 1 - i : i];
          if (live.matches(log.log)) out.push(log.rendered(removed));
        }
      }
    }
    return out;
  }

  private async command<T>(run: () => Promise<T>): Promise<T> {
    if (this.redis.status !== 'ready') throw new FilterStoreUnavailableError();
    try {
      return await run();
    } catch (err) {
      if (err instanceof Error && /timed out|Connection is closed|Stream isn't writeable|ECONN/.test(err.message)) throw new FilterStoreUnavailableError();
      throw err;
    }
  }
}
