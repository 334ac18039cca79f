import type { Logger } from 'pino';
import type { Config } from '../config/settings.js';
import type { FollowStatus } from '../follow/followLoop.js';
import { followHealth } from '../follow/followLoop.js';
import {
  closeStarknetContext,
  createStarknetContext,
  type StarknetContext,
  type StarknetUpstream,
  starknetHead,
  starknetMethods,
} from '../methods/starknet.js';
import type { StarknetStore } from '../starknet/store.js';
import { type NetworkHandle, networkHandle } from '../transport/networks.js';
import { healthLimits } from './health.js';

/** A Starknet network built on an opened store: its typed context, and the handle the server routes to. */
export interface StarknetNetwork {
  readonly kind: 'starknet';
  readonly name: string;
  readonly store: StarknetStore;
  readonly context: StarknetContext;
  readonly handle: NetworkHandle;
  /** Lets the feed's work in progress end; the store stays open: its opener closes it. */
  close(): Promise<void>;
}

/**
 * Wires an opened Starknet store into a network the server can route to, its methods configured
 * by `config`. A follower (`StarknetFollower`) is also the upstream the methods forward to and
 * ask older state of.
 */
export function createStarknetNetwork(
  store: StarknetStore,
  opts: { name: string; hostnames?: readonly string[]; config: Config; logger?: Logger; follower?: { status(): FollowStatus } & Partial<StarknetUpstream> },
): StarknetNetwork {
  const f = opts.follower;
  const upstream: StarknetUpstream | undefined =
    f?.forward && f.stateSource && f.syncing ? { forward: f.forward.bind(f), stateSource: f.stateSource.bind(f), syncing: f.syncing.bind(f) } : undefined;
  const context = createStarknetContext(
    store,
    opts.config,
    (err) => opts.logger?.warn({ network: opts.name, reason: err instanceof Error ? err.message : String(err) }, 'starknet subscriptions: update failed'),
    upstream,
  );
  const handle = networkHandle<StarknetContext>({
    name: opts.name,
    hostnames: opts.hostnames ?? [],
    methods: starknetMethods,
    context,
    async health() {
      const head = await starknetHead(store);
      if (!head) return { ok: false };
      if (!opts.follower) return { ok: true, head };
      return followHealth(head, opts.follower.status(), healthLimits(opts.config.follow));
    },
    subscriptionStats: () => ({ subscriptions: context.events.subscriptions.size, filters: 0 }),
  });
  return { kind: 'starknet', name: opts.name, store, context, handle, close: () => closeStarknetContext(context) };
}
