import { type Config, defaultConfig } from '../../config/settings.js';
import { createStarknetEvents, type StarknetEvents } from '../../live/starknet/starknetEvents.js';
import type { EventLimits } from '../../starknet/getEvents.js';
import { openStarknetStore, type StarknetStore } from '../../starknet/store.js';
import { STARKNET_LIVE_FORMAT } from './_shared/liveFormat.js';

/**
 * The context of the Starknet methods: what their handlers may use, and how the CLI builds it
 * for a datadir (eqlabs/pathfinder `crates/rpc/src/context.rs` plays the same part). The method
 * files and the method table (`../starknet.ts`) both import it from here.
 */

/** What Starknet method handlers may use. Built once per network by the CLI. */
export interface StarknetContext {
  store: StarknetStore;
  /** starknet_getEvents' page size and key limits (the `starknet` settings). */
  eventLimits: EventLimits;
  /** The network's feed of head changes and its subscriptions (WebSocket). */
  events: StarknetEvents;
  /** How far back a subscription's `block_id` may lie (`subscriptions.maxBlocksBack`). */
  maxBlocksBack: number;
}

/** A Starknet network's context plus what the server and CLI need around it. */
export interface StarknetNetworkContext extends StarknetContext {
  /** `GET /health`: ok with the latest block once a block is imported. */
  health(): Promise<{ ok: boolean; head?: { number: number; hash: string } }>;
  /** Closes the database. */
  close(): Promise<void>;
}

/**
 * Opens a Starknet datadir for serving, with the `starknet` and `subscriptions` settings of
 * `config` (event limits, block cache, subscription limits; the CLI passes the loaded
 * configuration, the defaults apply when omitted); `onError` hears of feed failures. Refuses
 * a datadir that is empty, of another kind (Ethereum) or of another schema version, with a message
 * saying what to run.
 */
export async function createStarknetContext(
  datadir: string,
  config: Pick<Config, 'starknet' | 'subscriptions'> = defaultConfig(),
  onError?: (err: unknown) => void,
): Promise<StarknetNetworkContext> {
  const store = await openStarknetStore(datadir, { blockCacheEntries: config.starknet.blockCacheEntries });
  const events = createStarknetEvents(store, config.subscriptions, STARKNET_LIVE_FORMAT, onError);
  return {
    store,
    eventLimits: { maxChunkSize: config.starknet.maxChunkSize, maxKeyPositions: config.starknet.maxKeyPositions },
    events,
    maxBlocksBack: config.subscriptions.maxBlocksBack,
    async health() {
      const latest = await store.latestNumber();
      if (latest === undefined) return { ok: false };
      const block = await store.block(latest);
      return { ok: true, head: { number: latest, hash: block!.hash } };
    },
    // The feed's pass or catch-up in progress ends before the database closes.
    close: async () => {
      await events.feed.exclusive(async () => undefined);
      await store.close();
    },
  };
}
