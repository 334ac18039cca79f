import type { Config } from '../../config/settings.js';
import { createStarknetEvents, type StarknetEvents } from '../../live/starknet/starknetEvents.js';
import type { EventLimits } from '../../starknet/getEvents.js';
import { StarknetState, type StarknetStateSource } from '../../starknet/stateReader.js';
import type { StarknetStore } from '../../starknet/store.js';
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
  /** Contract state at stored blocks, from the stored state updates (and the upstream, for older values). */
  state: StarknetState;
  /** The upstream the network follows, or undefined: what needs Starknet execution is forwarded to it. */
  upstream?: StarknetUpstream;
}

/** One answer of the followed upstream, as it gave it: its result or its JSON-RPC error. */
export type UpstreamReply = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** A block as `starknet_syncing` names it. */
export interface SyncBlock {
  number: number;
  hash: string;
}

/** The followed upstream, as the Starknet methods reach it (the CLI passes the network's follower). */
export interface StarknetUpstream {
  /** Sends one call (params as the client gave them) and returns the answer unchanged; rejects when no answer came. */
  forward(method: string, params: unknown): Promise<UpstreamReply>;
  /** Where the store asks for state older than its first block with state. */
  stateSource(): StarknetStateSource;
  /** While behind the upstream: the blocks following started at, is at, and heads to. */
  syncing(): Promise<{ starting: SyncBlock; current: SyncBlock; highest: SyncBlock } | undefined>;
}

/**
 * The context of an opened Starknet store, with the `starknet` and `subscriptions` settings of
 * `config` (event limits, subscription limits); `onError` hears of feed failures; `upstream` is
 * the followed node, when the network follows one. The caller owns the store (the composition
 * root opens it, as it opens an Ethereum chain) and closes the feed with
 * {@link closeStarknetContext} before the store.
 */
export function createStarknetContext(
  store: StarknetStore,
  config: Pick<Config, 'starknet' | 'subscriptions'>,
  onError?: (err: unknown) => void,
  upstream?: StarknetUpstream,
): StarknetContext {
  return {
    store,
    eventLimits: { maxChunkSize: config.starknet.maxChunkSize, maxKeyPositions: config.starknet.maxKeyPositions },
    events: createStarknetEvents(store, config.subscriptions, STARKNET_LIVE_FORMAT, onError),
    maxBlocksBack: config.subscriptions.maxBlocksBack,
    state: new StarknetState(store, upstream?.stateSource()),
    upstream,
  };
}

/** Lets the feed's pass or catch-up in progress end, so the store can close under it. */
export async function closeStarknetContext(ctx: StarknetContext): Promise<void> {
  await ctx.events.feed.exclusive(async () => undefined);
}

/** The head of a Starknet store as /health gives it: the latest block, or not ok before any. */
export async function starknetHead(store: StarknetStore): Promise<{ number: number; hash: string } | undefined> {
  const latest = await store.latestNumber();
  if (latest === undefined) return undefined;
  const block = await store.block(latest);
  return { number: latest, hash: block!.hash };
}
