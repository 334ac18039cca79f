import type { EvmPoolStats, RemoteStateStats } from '../pipeline/metrics.js';
import type { MethodTable } from '../rpc/method.js';

/**
 * The networks a server hosts and how a request picks one: by its Host name, as hosted providers
 * name networks (`mainnet.example.net`, `starknet-mainnet.localhost`).
 */

/**
 * One network the server hosts (one datadir): its methods and the context they run with, as the
 * transport and the pipeline see them — the context's type erased, since they only hand it to
 * the methods. Built by {@link networkHandle}, which checks that the table and the context agree.
 * The Host header picks the network, as hosted providers do (`mainnet.localhost`, …).
 */
export interface NetworkHandle {
  name: string; // e.g. 'mainnet'
  hostnames: readonly string[]; // Host names routed here (case-insensitive, port ignored; a dot-less name matches the first label); may be empty
  methods: MethodTable<unknown>;
  context: unknown; // passed as ctx to MethodDefinition.call
  health(): Promise<{ ok: boolean } & Record<string, unknown>>;
  /** The head as one request sees it, read at most once per request (see `RequestContext.head`). */
  head?(): Promise<unknown>;
  /** Hits, misses and entries of the network's caches, by cache name (for the metrics). */
  cacheStats?(): Record<string, { hits: number; misses: number; entries: number }>;
  /** The network's EVM worker pool (for the metrics). */
  evmStats?(): EvmPoolStats;
  /** Live subscriptions and installed filters (for the metrics). */
  subscriptionStats?(): { subscriptions: number; filters: number };
  /** Header rules broken by followed blocks under lenient checks, by rule (for the metrics). */
  headerDeviations?(): Partial<Record<string, number>>;
  /** An archive that starts at block N: what its state reads fetched from the followed node (for the metrics). */
  remoteState?(): RemoteStateStats;
}

/** A {@link NetworkHandle} as its builder writes it: a method table and the context its methods take, of one type. */
export type NetworkParts<Ctx> = Omit<NetworkHandle, 'methods' | 'context'> & { methods: MethodTable<Ctx>; context: Ctx };

/**
 * The handle of a network whose methods take a `Ctx`: the one place a network's context type is
 * erased, after the compiler has checked that the table's methods take the context given.
 */
export function networkHandle<Ctx>(parts: NetworkParts<Ctx>): NetworkHandle {
  return parts as unknown as NetworkHandle;
}

/** The Host header's name, lower-case, without port or trailing dot (`[::1]:8545` → `[::1]`). */
function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end < 0 ? h : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  if (colon >= 0) h = h.slice(0, colon);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/** The network a Host header names; the first network when it names none. */
export function createNetworkSelector(networks: readonly NetworkHandle[]): (host: string | undefined) => NetworkHandle {
  const byHost = new Map<string, NetworkHandle>();
  for (const network of networks) {
    for (const name of network.hostnames) {
      const key = normalizeHost(name);
      const other = byHost.get(key);
      if (other !== undefined && other !== network) throw new Error(`buildServer: host ${name} is claimed by ${other.name} and ${network.name}`);
      byHost.set(key, network);
    }
  }
  const fallback = networks[0];
  // An exact host name wins; otherwise a dot-less entry matches the host's first label, as hosted
  // providers name networks (`mainnet.example.net`, `starknet-mainnet.localhost`).
  const select = (host: string): NetworkHandle => {
    const name = normalizeHost(host);
    return byHost.get(name) ?? byHost.get(name.split('.')[0]) ?? fallback;
  };
  // Clients send the same Host again and again: the last one's choice is kept. Normalising and
  // splitting cost ~0.4 µs a request; comparing with the last Host a few nanoseconds.
  let lastHost: string | undefined;
  let lastNetwork = fallback;
  return (host) => {
    if (host === undefined) return fallback;
    if (host !== lastHost) {
      lastNetwork = select(host);
      lastHost = host;
    }
    return lastNetwork;
  };
}
