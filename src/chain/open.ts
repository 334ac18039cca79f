import type { Common } from '@ethereumjs/common';
import type { Config } from '../config/settings.js';
import { type Level, openDatabase } from '../db/database.js';
import { KIND_ETHEREUM, META, SCHEMA_VERSION } from '../db/keys.js';
import { checkGenesis, createChainCommon, type GethGenesis } from './genesis.js';
import { ChainStore } from './store.js';

/** An opened Ethereum datadir: its database, its chain configuration and its chain store. */
export interface EthereumChain {
  /** The datadir it was opened from (EVM workers open the same database). */
  datadir: string;
  level: Level;
  genesis: GethGenesis;
  common: Common;
  store: ChainStore;
  close(): Promise<void>;
}

/** Thrown when a datadir has not been initialised with a genesis. */
export class NotInitialisedError extends Error {
  override readonly name = 'NotInitialisedError';
}

/**
 * Opens an initialised Ethereum datadir. The genesis stored by `init` decides the chain config;
 * a database of another schema version is refused rather than misread. `caches` sizes the chain
 * store's caches.
 */
export async function openChain(datadir: string, caches: Config['caches']): Promise<EthereumChain> {
  const level = await openDatabase(datadir);
  try {
    const kind = await level.get(META.kind);
    if (kind && new TextDecoder().decode(kind) !== KIND_ETHEREUM) {
      throw new Error(`datadir ${datadir} holds a ${new TextDecoder().decode(kind)} network, not an Ethereum chain`);
    }
    const schema = await level.get(META.schema);
    const genesisBytes = await level.get(META.genesis);
    if (!schema || !genesisBytes)
      throw new NotInitialisedError(
        `datadir ${datadir} is not initialised: run \`tracenode init --datadir ${datadir} --genesis genesis.json\` (or \`--from-node URL\` for a development node)`,
      );
    const version = new DataView(schema.buffer, schema.byteOffset, 4).getUint32(0);
    if (version !== SCHEMA_VERSION) throw new Error(`datadir ${datadir} has database schema ${version}, this tracenode reads ${SCHEMA_VERSION}`);
    const genesis = checkGenesis(JSON.parse(new TextDecoder().decode(genesisBytes)));
    const common = await createChainCommon(genesis);
    const store = new ChainStore(level, common, caches);
    return { datadir, level, genesis, common, store, close: () => level.close() };
  } catch (err) {
    await level.close();
    throw err;
  }
}

/** The 4-byte value stored under the schema key. */
export function schemaBytes(): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, SCHEMA_VERSION);
  return out;
}
