import { bytesToHex } from '@ethereumjs/util';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { EthereumChain } from '../chain/open.js';
import type { BlockStateStats } from '../follow/blockState.js';
import type { FollowStatus } from '../follow/followLoop.js';
import { followHealth } from '../follow/followLoop.js';
import type { UpstreamStateSource } from '../follow/upstreamState.js';
import type { PendingSource } from '../live/eth/pendingRelay.js';
import { createEthContext, type EthContext, type EthContextConfig } from '../methods/context.js';
import type { UpstreamPool } from '../methods/eth/_shared/upstreamPool.js';
import { ethereumMethods } from '../methods/ethereum.js';
import type { RemoteStateStats } from '../pipeline/metrics.js';
import { type NetworkHandle, networkHandle } from '../transport/networks.js';
import { healthLimits } from './health.js';

/** An Ethereum network built on an opened chain: its typed context, and the handle the server routes to. */
export interface EthereumNetwork {
  readonly kind: 'ethereum';
  readonly name: string;
  readonly chain: EthereumChain;
  readonly context: EthContext;
  readonly handle: NetworkHandle;
  /** Stops what the network started (the chain events, the EVM workers); the chain stays open: its opener closes it. */
  close(): Promise<void>;
}

/** What {@link createEthereumNetwork} wires in besides the chain. */
export interface EthereumNetworkOptions {
  name: string;
  hostnames?: readonly string[];
  clientVersion: string;
  config: EthContextConfig;
  logger?: Logger;
  follower?: { status(): FollowStatus };
  /** Pending transactions relayed from the followed node (default: none, refused). */
  pending?: PendingSource;
  /** Block and log filters in Redis, shared by replicas (`--redis`). */
  sharedFilters?: { redis: Redis; prefix: string };
  /** The followed node, where transactions are sent (default: none, refused). */
  pool?: UpstreamPool;
  /** An archive that starts at block N: the followed node, where the state it does not hold is fetched. */
  stateSource?: UpstreamStateSource;
}

/** Wires an opened Ethereum chain into a network the server can route to, its methods configured by `config`. */
export async function createEthereumNetwork(chain: EthereumChain, opts: EthereumNetworkOptions): Promise<EthereumNetwork> {
  // A lost EVM worker is replaced and its request answered with an error; the operator sees why here.
  const onWorkerFailure = (reason: string, err?: unknown) =>
    opts.logger?.error({ network: opts.name, err: err instanceof Error ? err.message : err }, `EVM worker ${reason}`);
  const context = await createEthContext(
    chain,
    opts.clientVersion,
    opts.config,
    onWorkerFailure,
    opts.pending,
    opts.sharedFilters,
    opts.pool,
    opts.stateSource,
  );
  // An archive from block N says so on /health (and `serve`'s startup line reads it there).
  const archiveFrom = chain.start === undefined ? {} : { archiveFrom: Number(chain.start.number) };
  const handle = networkHandle<EthContext>({
    name: opts.name,
    hostnames: opts.hostnames ?? [],
    methods: ethereumMethods,
    context,
    async health() {
      const head = await chain.store.head();
      if (!head) return { ok: false };
      const own = { number: Number(head.number), hash: bytesToHex(head.hash) };
      if (!opts.follower) return { ok: true, head: own, ...archiveFrom };
      return { ...followHealth(own, opts.follower.status(), healthLimits(opts.config.follow)), ...archiveFrom };
    },
    // The head snapshot of a request (RequestContext.head): read once, shared by its calls.
    head: () => chain.store.head(),
    evmStats: () => context.evm.stats(),
    subscriptionStats: () => ({ subscriptions: context.events.subscriptions.size, filters: context.events.filters.size }),
    headerDeviations: () => opts.follower?.status().headerDeviations ?? {},
    cacheStats: () => ({
      ...chain.store.cacheStats(),
      state_reads: context.state.reads.cacheStats(),
      trie_nodes: context.state.db.cacheStats(),
      call_results: context.execution.cacheStats(),
      gas_estimates: context.execution.estimateCacheStats(),
    }),
    remoteState: chain.start === undefined ? undefined : () => remoteStateStats(context, opts.stateSource, opts.follower?.status().stateFetch),
  });
  return {
    kind: 'ethereum',
    name: opts.name,
    chain,
    context,
    handle,
    // Running EVM jobs finish (each within its deadline) and the workers close their database
    // handles before the chain closes its own.
    close: async () => {
      context.events.close();
      await context.evm.close();
    },
  };
}

/** What an archive from block N fetched, and its state reads: the serving thread's and the EVM workers'. */
function remoteStateStats(context: EthContext, source: UpstreamStateSource | undefined, follow: BlockStateStats | undefined): RemoteStateStats {
  const { hits, misses } = context.state.reads.cacheStats();
  const own = context.state.reads.remote?.stats();
  const workers = context.evm.stateReads();
  const remote = (own ? own.account + own.storage + own.code + own.proof : 0) + workers.remote;
  const followed = follow && { blocks: follow.blocks, calls: follow.calls, siblings: follow.siblings };
  return { fetches: source?.stats() ?? {}, reads: { lookups: hits + misses + workers.lookups, remote }, ...(followed ? { follow: followed } : {}) };
}
