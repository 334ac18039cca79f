import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { openChain } from '../chain/open.js';
import type { Config } from '../config/settings.js';
import { openDatabase } from '../db/database.js';
import { META } from '../db/keys.js';
import { FollowerThread } from '../follow/followerThread.js';
import type { FollowerLog } from '../follow/followLoop.js';
import { StarknetFollower } from '../follow/starknetFollower.js';
import { shownUpstreamUrl, Upstream } from '../follow/upstream.js';
import { UpstreamStateSource } from '../follow/upstreamState.js';
import { createPendingRelay } from '../live/eth/pendingRelay.js';
import type { UpstreamPool } from '../methods/eth/_shared/upstreamPool.js';
import { connectRedis } from '../pipeline/limitStore.js';
import { openStarknetStore } from '../starknet/store.js';
import { listenControl } from './control.js';
import { createEthereumNetwork, type EthereumNetwork } from './ethereumNetwork.js';
import { createStarknetNetwork, type StarknetNetwork } from './starknetNetwork.js';

export { createEthereumNetwork, type EthereumNetwork } from './ethereumNetwork.js';
export { createStarknetNetwork, type StarknetNetwork } from './starknetNetwork.js';

/**
 * A network the server hosts, typed by its kind: an Ethereum chain with its EthContext, or a
 * Starknet store with its StarknetContext; each with the handle the transport routes to by Host
 * name. Both kinds are composed the same way (`openNetwork`): the datadir's storage is opened, the
 * follower (if any) started on it, the context built on the opened storage, the control socket
 * listened on; `close()` undoes it in the reverse order.
 */
export type Network = EthereumNetwork | StarknetNetwork;

/** A network's log lines (the follower's, the control socket's), under the server's logger or nowhere. */
type NetworkLog = FollowerLog;
const silentLog: NetworkLog = { info() {}, warn() {}, error() {}, debug() {} };

/**
 * Opens a datadir as a network of the kind it holds (the `kind` metadata key; an Ethereum datadir
 * from before that key has its genesis instead). Routed by `name` as the Host's first label; each
 * layer gets its sections of `config`.
 */
export async function openNetwork(name: string, datadir: string, clientVersion: string, config: Config, logger?: Logger, followUrl?: string): Promise<Network> {
  const log: NetworkLog = logger?.child({ network: name }) ?? silentLog;
  return (await datadirKind(datadir)) === 'starknet'
    ? openStarknet(name, datadir, config, logger, log, followUrl)
    : openEthereum(name, datadir, clientVersion, config, logger, log, followUrl);
}

async function datadirKind(datadir: string): Promise<string | undefined> {
  const level = await openDatabase(datadir);
  try {
    const bytes = await level.get(META.kind);
    return bytes ? new TextDecoder().decode(bytes) : undefined;
  } finally {
    await level.close();
  }
}

async function openStarknet(name: string, datadir: string, config: Config, logger: Logger | undefined, log: NetworkLog, followUrl?: string): Promise<Network> {
  const store = await openStarknetStore(datadir, { blockCacheEntries: config.starknet.blockCacheEntries });
  // Following a Starknet upstream is light (no execution): it runs on the serving thread, on the
  // store the methods read, whose caches it keeps current; each head it writes is announced to the
  // network's subscriptions.
  let headMoved = (): void => {};
  const follower =
    followUrl === undefined
      ? undefined
      : new StarknetFollower(store, new Upstream(followUrl, { requestTimeoutMs: config.follow.requestTimeoutMs }), {
          settings: config.follow,
          importSettings: config.import,
          log,
          onHead: () => headMoved(),
        });
  const network = createStarknetNetwork(store, { name, hostnames: [name], config, logger, follower });
  headMoved = () => void network.context.events.headMoved();
  follower?.start();
  const control = await listenControl(datadir, store.level, log);
  return {
    ...network,
    close: async () => {
      await control?.close();
      await follower?.stop();
      await network.close();
      await store.close();
    },
  };
}

async function openEthereum(
  name: string,
  datadir: string,
  clientVersion: string,
  config: Config,
  logger: Logger | undefined,
  log: NetworkLog,
  followUrl?: string,
): Promise<Network> {
  const chain = await openChain(datadir, config.caches);
  // Following runs in a thread of its own (block execution never holds the serving thread); each
  // head it writes is announced to the network's subscriptions and filters.
  let headMoved = (): void => {};
  const follower = followUrl === undefined ? undefined : new FollowerThread(chain, followUrl, config, log, shownUpstreamUrl(followUrl), () => headMoved());
  // Pending transactions come from the followed node's pool, over a connection of this thread's
  // own; transactions sent through this node go there too, and its pool answers pending nonces.
  const upstream = followUrl === undefined ? undefined : new Upstream(followUrl, { requestTimeoutMs: config.follow.requestTimeoutMs });
  const pending =
    upstream &&
    createPendingRelay(
      (method, params) => upstream.call(method, params),
      config.follow.pollIntervalMs,
      (err) => log.debug({ reason: err instanceof Error ? err.message : String(err) }, 'pending transactions: upstream poll failed'),
    );
  const pool: UpstreamPool | undefined = upstream && { forward: (method, params) => upstream.forward(method, params) };
  // An archive that starts at block N fetches the state it does not hold from the same node.
  const stateSource = upstream && chain.start && new UpstreamStateSource(upstream, chain.store, chain.start);
  // Filters in Redis: a connection of the network's own, failing fast while Redis is away.
  const redis = config.server.redis === undefined ? undefined : filterConnection(config);
  const sharedFilters = redis && { redis, prefix: `${config.redis.keyPrefix}${name}:` };
  const network = await createEthereumNetwork(chain, {
    name,
    hostnames: [name],
    clientVersion,
    config,
    logger,
    follower,
    pending,
    sharedFilters,
    pool,
    stateSource,
  });
  headMoved = () => void network.context.events.headMoved();
  // A serving node starts its EVM workers now, so its first calls do not wait for them.
  network.context.evm.warm();
  const control = await listenControl(datadir, chain.level, log);
  return {
    ...network,
    close: async () => {
      await control?.close();
      await follower?.stop();
      upstream?.close();
      redis?.disconnect();
      await network.close();
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
