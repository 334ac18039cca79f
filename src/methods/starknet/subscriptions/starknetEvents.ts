import type { Config } from '../../../config/settings.js';
import type { StarknetStore } from '../../../starknet/store.js';
import { StarknetFeed } from './starknetFeed.js';
import { StarknetSubscriptionHub } from './subscriptionHub.js';

/** A Starknet network's feed of head changes with the subscriptions it feeds. */
export interface StarknetEvents {
  readonly feed: StarknetFeed;
  readonly subscriptions: StarknetSubscriptionHub;
  /** The head may have moved (the follower wrote a block or switched branches): announce what changed. */
  headMoved(): Promise<void>;
}

/** The events of a store, under the `subscriptions` settings. Starts from the store's head. */
export function createStarknetEvents(
  store: StarknetStore,
  settings: Pick<Config['subscriptions'], 'maxPerConnection'>,
  onError?: (err: unknown) => void,
): StarknetEvents {
  const feed = new StarknetFeed(store, { onError });
  const subscriptions = new StarknetSubscriptionHub(feed, { maxPerConnection: settings.maxPerConnection }, { onError });
  void feed.headMoved();
  return { feed, subscriptions, headMoved: () => feed.headMoved() };
}
