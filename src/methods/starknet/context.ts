import { type Config, defaultConfig } from '../../config/settings.js';
import type { EventLimits } from '../../starknet/getEvents.js';
import { openStarknetStore, type StarknetStore } from '../../starknet/store.js';

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
}

/** A Starknet network's context plus what the server and CLI need around it. */
export interface StarknetNetworkContext extends StarknetContext {
  /** `GET /health`: ok with the latest block once a block is imported. */
  health(): Promise<{ ok: boolean; head?: { number: number; hash: string } }>;
  /** Closes the database. */
  close(): Promise<void>;
}

/**
 * Opens a Starknet datadir for serving, with the `starknet` settings of `config` (event limits and
 * block cache; the CLI passes the loaded configuration, the defaults apply when omitted). Refuses
 * a datadir that is empty, of another kind (Ethereum) or of another schema version, with a message
 * saying what to run.
 */
export async function createStarknetContext(datadir: string, config: Pick<Config, 'starknet'> = defaultConfig()): Promise<StarknetNetworkContext> {
  const store = await openStarknetStore(datadir, { blockCacheEntries: config.starknet.blockCacheEntries });
  return {
    store,
    eventLimits: { maxChunkSize: config.starknet.maxChunkSize, maxKeyPositions: config.starknet.maxKeyPositions },
    async health() {
      const latest = await store.latestNumber();
      if (latest === undefined) return { ok: false };
      const block = await store.block(latest);
      return { ok: true, head: { number: latest, hash: block!.hash } };
    },
    close: () => store.close(),
  };
}
