import type { Redis } from 'ioredis';
import type { ChainStore } from '../../chain/store.js';
import type { Config } from '../../config/settings.js';
import { ChainFeed, type ChainRenderer } from './chainFeed.js';
import { FilterStore, type PolledFilters } from './filterStore.js';
import { NO_PENDING_SOURCE, type PendingSource } from './pendingRelay.js';
import { type CriteriaCodec, SharedFilterStore } from './sharedFilters.js';
import { type NotificationFrame, SubscriptionHub } from './subscriptionHub.js';

/** A network's chain feed with the subscriptions and filters it feeds (criteria `C`, rendered logs `L`). */
export interface ChainEvents<C, L> {
  readonly feed: ChainFeed<L>;
  readonly subscriptions: SubscriptionHub<L>;
  readonly filters: PolledFilters<C, L>;
  /** Pending transactions, relayed from the followed node (or refused). */
  readonly pending: PendingSource;
  /** The head may have moved (the follower wrote a block): announce what changed. */
  headMoved(): Promise<void>;
  /** Stops the filters' sweep. */
  close(): void;
}

/**
 * What the live layer is given by `methods/`, which owns the wire: how headers and logs are
 * rendered, the envelope of a notification, and how log criteria are stored and matched.
 */
export interface ChainEventsFormat<C, L> {
  readonly render: ChainRenderer<L>;
  readonly frame: NotificationFrame;
  readonly criteria: CriteriaCodec<C>;
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
export function createChainEvents<C, L>(
  store: ChainStore,
  settings: Config['subscriptions'],
  format: ChainEventsFormat<C, L>,
  opts: ChainEventsOptions = {},
): ChainEvents<C, L> {
  const feed = new ChainFeed(store, format.render, { onError: opts.onError });
  const subscriptions = new SubscriptionHub(feed, { maxPerConnection: settings.maxPerConnection }, format.frame);
  const limits = { maxPerKey: settings.filtersPerKey, timeoutMs: settings.filterTimeoutMs, maxChanges: settings.filterMaxChanges };
  const local = new FilterStore<C, L>(feed, limits, opts.now);
  const filters =
    opts.shared === undefined ? local : new SharedFilterStore(opts.shared.redis, opts.shared.prefix, feed, format.criteria, local, limits, opts.now);
  void feed.start();
  return { feed, subscriptions, filters, pending: opts.pending ?? NO_PENDING_SOURCE, headMoved: () => feed.headMoved(), close: () => filters.close() };
}
