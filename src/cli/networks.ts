import { bytesToHex } from '@ethereumjs/util';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type EthereumChain, openChain } from '../chain/open.js';
import type { Config } from '../config/settings.js';
import { openDatabase } from '../db/database.js';
import { META } from '../db/keys.js';
import { FollowerThread } from '../follow/followerThread.js';
import { type FollowStatus, followHealth } from '../follow/followLoop.js';
import { StarknetFollower } from '../follow/starknetFollower.js';
import { shownUpstreamUrl, Upstream } from '../follow/upstream.js';
import { createPendingRelay, type PendingSource } from '../live/eth/pendingRelay.js';
import { createEthContext, type EthContext, type EthContextConfig } from '../methods/context.js';
import type { UpstreamPool } from '../methods/eth/_shared/upstreamPool.js';
import { ethereumMethods } from '../methods/ethereum.js';
import { createStarknetContext, starknetMethods } from '../methods/starknet.js';
import { connectRedis } from '../pipeline/limitStore.js';
import type { MethodTable } from '../rpc/method.js';
import type { NetworkHandle } from '../transport/networks.js';
import { listenControl } from './control.js';

const silentLog = { child: () => silentLog, info() {}, warn() {}, error() {}, debug() {} };

/** Wires an opened Ethereum chain into a network the server can route to, its methods configured by `config`. */
export async function createEthereumNetwork(
  chain: EthereumChain,
  opts: {
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
  },
): Promise<NetworkHandle> {
  // A lost EVM worker is replaced and its request answered with an error; the operator sees why here.
  const onWorkerFailure = (reason: string, err?: unknown) =>
    opts.logger?.error({ network: opts.name, err: err instanceof Error ? err.message : err }, `EVM worker ${reason}`);
  const context = await createEthContext(chain, opts.clientVersion, opts.config, onWorkerFailure, opts.pending, opts.sharedFilters, opts.pool);
  return {
    name: opts.name,
    hostnames: opts.hostnames ?? [],
    methods: ethereumMethods as MethodTable<unknown>,
    context,
    async health() {
      const head = await chain.store.head();
      if (!head) return { ok: false };
      const own = { number: Number(head.number), hash: bytesToHex(head.hash) };
      if (!opts.follower) return { ok: true, head: own };
      return followHealth(own, opts.follower.status(), healthLimits(opts.config.follow));
    },
    // The head snapshot of a request (RequestContext.head): read once, shared by its calls.
    head: () => chain.store.head(),
    evmStats: () => context.evm.stats(),
    subscriptionStats: () => ({ subscriptions: context.events.subscriptions.size, filters: context.events.filters.size }),
    headerDeviations: () => opts.follower?.status().headerDeviations ?? {},
    cacheStats: () => ({ ...chain.store.cacheStats(), state_reads: context.state.reads.cacheStats(), trie_nodes: context.state.db.cacheStats() }),
  };
}

/** A network opened for serving, and how to close it. */
export interface OpenedNetwork {
  kind: 'ethereum' | 'starknet';
  handle: NetworkHandle;
  close(): Promise<void>;
}

/**
 * Opens a datadir as a network of the kind it holds (the `kind` metadata key; an Ethereum datadir
 * from before that key has its genesis instead). Routed by `name` as the Host's first label; each
 * layer gets its sections of `config`.
 */
export async function openNetwork(
  name: string,
  datadir: string,
  clientVersion: string,
  config: Config,
  logger?: Logger,
  followUrl?: string,
): Promise<OpenedNetwork> {
  const level = await openDatabase(datadir);
  let kind: string | undefined;
  try {
    const bytes = await level.get(META.kind);
    kind = bytes ? new TextDecoder().decode(bytes) : undefined;
  } finally {
    await level.close();
  }
  if (kind === 'starknet') {
    const ctx = await createStarknetContext(datadir, config, (err) =>
      logger?.warn({ network: name, reason: err instanceof Error ? err.message : String(err) }, 'starknet subscriptions: update failed'),
    );
    // Following a Starknet upstream is light (no execution): it runs on the serving thread, on the
    // store the methods read, whose caches it keeps current.
    const follower =
      followUrl === undefined
        ? undefined
        : new StarknetFollower(ctx.store, new Upstream(followUrl, { requestTimeoutMs: config.follow.requestTimeoutMs }), {
            settings: config.follow,
            importSettings: config.import,
            log: (logger ?? silentLog).child({ network: name }),
            // Each head it writes is announced to the network's subscriptions.
            onHead: () => void ctx.events.headMoved(),
          });
    follower?.start();
    const control = await listenControl(datadir, ctx.store.level, (logger ?? silentLog).child({ network: name }));
    const health = async () => {
      const own = await ctx.health();
      if (!follower || !own.head) return own;
      return followHealth(own.head, follower.status(), healthLimits(config.follow));
    };
    return {
      kind: 'starknet',
      handle: {
        name,
        hostnames: [name],
        methods: starknetMethods as MethodTable<unknown>,
        context: ctx,
        health,
        subscriptionStats: () => ({ subscriptions: ctx.events.subscriptions.size, filters: 0 }),
      },
      close: async () => {
        await control?.close();
        await follower?.stop();
        await ctx.close();
      },
    };
  }
  const chain = await openChain(datadir, config.caches);
  // Following runs in a thread of its own (block execution never holds the serving thread); each
  // head it writes is announced to the network's subscriptions and filters.
  let headMoved = (): void => {};
  const follower =
    followUrl === undefined
      ? undefined
      : new FollowerThread(chain, followUrl, config, (logger ?? silentLog).child({ network: name }), shownUpstreamUrl(followUrl), () => headMoved());
  // Pending transactions come from the followed node's pool, over a connection of this thread's
  // own; transactions sent through this node go there too.
  const upstream = followUrl === undefined ? undefined : new Upstream(followUrl, { requestTimeoutMs: config.follow.requestTimeoutMs });
  const pending =
    upstream &&
    createPendingRelay(
      (method, params) => upstream.call(method, params),
      config.follow.pollIntervalMs,
      (err) => logger?.debug({ network: name, reason: err instanceof Error ? err.message : String(err) }, 'pending transactions: upstream poll failed'),
    );
  // Filters in Redis: a connection of the network's own, failing fast while Redis is away.
  const redis = config.server.redis === undefined ? undefined : filterConnection(config);
  const sharedFilters = redis && { redis, prefix: `${config.redis.keyPrefix}${name}:` };
  // Transactions are sent to the followed node, and its pool answers pending nonces and lookups.
  const pool: UpstreamPool | undefined = upstream && { forward: (method, params) => upstream.forward(method, params) };
  const handle = await createEthereumNetwork(chain, { name, hostnames: [name], clientVersion, config, logger, follower, pending, sharedFilters, pool });
  const events = (handle.context as EthContext).events;
  headMoved = () => void events.headMoved();
  // A serving node starts its EVM workers now, so its first calls do not wait for them.
  (handle.context as EthContext).evm.warm();
  const control = await listenControl(datadir, chain.level, (logger ?? silentLog).child({ network: name }));
  return {
    kind: 'ethereum',
    handle,
    // Running EVM jobs finish (each within its deadline) and the workers close their database
    // handles before the chain closes its own.
    close: async () => {
      await control?.close();
      await follower?.stop();
      events.close();
      upstream?.close();
      redis?.disconnect();
      await (handle.context as EthContext).evm.close();
      await chain.close();
    },
  };
}

/** The Redis connection of a network's filters: no offline queue, so a call fails at once while Redis is away. */
function filterConnection(config: Config): Redis {
  const redis = connectRedis(config.server.redis!, config.redis);
  // Outages are logged once by the limiters' connection; filter calls answer -32000 meanwhile.
  redis.on('error', () => {});
  return redis;
}

/** When a following network's /health turns 503 (`follow.healthMaxLagBlocks`, `follow.healthMaxSilenceMs`). */
function healthLimits(follow: Config['follow']) {
  return { maxLagBlocks: follow.healthMaxLagBlocks, maxSilenceMs: follow.healthMaxSilenceMs };
}
