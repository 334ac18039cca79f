import type { Redis } from 'ioredis';
import type { ChainStore } from '../../../chain/store.js';
import type { Config } from '../../../config/settings.js';
import { ChainFeed } from './chainFeed.js';
import { FilterStore, type PolledFilters } from './filterStore.js';
import { NO_PENDING_SOURCE, type PendingSource } from './pendingRelay.js';
import { SharedFilterStore } from './sharedFilters.js';
import { SubscriptionHub } from './subscriptionHub.js';

/** A network's chain feed with the subscriptions and filters it feeds. */
export interface ChainEvents {
  readonly feed: ChainFeed;
  readonly subscriptions: SubscriptionHub;
  readonly filters: PolledFilters;
  /** Pending transactions, relayed from the followed node (or refused). */
  readonly pending: PendingSource;
  /** The head may have moved (the follower wrote a block): announce what changed. */
  headMoved(): Promise<void>;
  /** Stops the filters' sweep. */
  close(): void;
}

export interface ChainEventsOptions {
  /** The filters' clock (tests inject one); default Date.now. */
  now?: () => number;
  onError?: (err: unknown) => void;
  /** Where pending transactions come from; default none (refused). */
  pending?: PendingSource;
  /** Block and log filters kept in this Redis, shared by replicas (`--redis`); default: in this process. */
  shared?: { redis: Redis; prefix: string };
}

/** The chain events of a store, under the `subscriptions` settings. Starts from the store's head. */
export function createChainEvents(store: ChainStore, settings: Config['subscriptions'], opts: ChainEventsOptions = {}): ChainEvents {
  const feed = new ChainFeed(store, { onError: opts.onError });
  const subscriptions = new SubscriptionHub(feed, { maxPerConnection: settings.maxPerConnection });
  const limits = { maxPerKey: settings.filtersPerKey, timeoutMs: settings.filterTimeoutMs, maxChanges: settings.filterMaxChanges };
  const local = new FilterStore(feed, limits, opts.now);
  const filters = opts.shared === undefined ? local : new SharedFilterStore(opts.shared.redis, opts.shared.prefix, store, local, limits, opts.now);
  void feed.start();
  return { feed, subscriptions, filters, pending: opts.pending ?? NO_PENDING_SOURCE, headMoved: () => feed.headMoved(), close: () => filters.close() };
}
