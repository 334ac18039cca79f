import type { Config } from '../../config/settings.js';
import type { StarknetStore } from '../../starknet/store.js';
import { StarknetFeed, type StarknetRenderer } from './starknetFeed.js';
import { type StarknetFrame, StarknetSubscriptionHub } from './subscriptionHub.js';

/** A Starknet network's feed of head changes with the subscriptions it feeds. */
export interface StarknetEvents {
  readonly feed: StarknetFeed;
  readonly subscriptions: StarknetSubscriptionHub;
  /** The head may have moved (the follower wrote a block or switched branches): announce what changed. */
  headMoved(): Promise<void>;
}

/** What the live layer is given by `methods/`, which owns the wire: the renderings and the notification envelope. */
export interface StarknetEventsFormat {
  readonly render: StarknetRenderer;
  readonly frame: StarknetFrame;
}

/** The events of a store, under the `subscriptions` settings. Starts from the store's head. */
export function createStarknetEvents(
  store: StarknetStore,
  settings: Pick<Config['subscriptions'], 'maxPerConnection'>,
  format: StarknetEventsFormat,
  onError?: (err: unknown) => void,
): StarknetEvents {
  const feed = new StarknetFeed(store, format.render, { onError });
  const subscriptions = new StarknetSubscriptionHub(feed, { maxPerConnection: settings.maxPerConnection }, format.frame, { onError });
  void feed.headMoved();
  return { feed, subscriptions, headMoved: () => feed.headMoved() };
}
