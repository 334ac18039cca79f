import type { Common } from '@ethereumjs/common';
import type { Config } from '../config/settings.js';
import { type BatchOp, type Level, openDatabase } from '../db/database.js';
import { KIND_ETHEREUM, META, SCHEMA_VERSION } from '../db/keys.js';
import { ETHEREUM_SCHEMA, upgradeSchema, versionBytes } from '../db/schema.js';
import { DomainError } from '../errors/domainError.js';
import { type ArchiveStart, readArchiveStart } from './archiveStart.js';
import { createBuiltinCommon, gethConfigOf } from './chainRules.js';
import { createChainCommon, type GethGenesis, parseGenesis } from './genesis.js';
import { readMergeBlock, scheduleMerge } from './mergeByDifficulty.js';
import { type OpRollup, rollupFromGethGenesis } from './op/rollup.js';
import { ChainStore } from './store.js';

/** An opened Ethereum datadir: its database, its chain configuration and its chain store. */
export interface EthereumChain {
  /** The datadir it was opened from (EVM workers open the same database). */
  datadir: string;
  level: Level;
  genesis: GethGenesis;
  common: Common;
  store: ChainStore;
  /**
   * An OP-stack chain's rules (`op/rollup.ts`), from its genesis' `config.optimism` section and
   * upgrade times (an op-geth genesis file, or `init --from-node --op-upgrade` for anvil's OP
   * mode); undefined for an Ethereum chain.
   */
  op?: OpRollup;
  /**
   * The first block of an archive that starts at block N (`chain/archiveStart.ts`); undefined
   * for a datadir that holds the chain from its genesis.
   */
  start?: ArchiveStart;
  /**
   * Runs `task` when the chain closes, before its database does, the last registered first:
   * what holds its own handle on the same database (the EVM workers) stops first.
   */
  beforeClose(task: () => Promise<void>): void;
  /** Runs the `beforeClose` tasks, then closes the database. */
  close(): Promise<void>;
}

/** Thrown when a datadir has not been initialised with a genesis. */
export class NotInitialisedError extends DomainError {
  override readonly name = 'NotInitialisedError';
}

/**
 * Opens an initialised Ethereum datadir. The genesis stored by `init` decides the chain config, or,
 * in an archive that starts at block N of a public network, the built-in chain META.builtinChain
 * names (`chain/chainRules.ts`); a database of an older schema version is migrated (`db/schema.ts`; `progress` gets its lines), one of a
 * newer or unknown version refused rather than
 * misread. `caches` sizes the chain store's caches.
 */
export async function openChain(datadir: string, caches: Config['caches'], progress = writeProgress): Promise<EthereumChain> {
  const level = await openDatabase(datadir);
  try {
    const kind = await level.get(META.kind);
    if (kind && new TextDecoder().decode(kind) !== KIND_ETHEREUM) {
      throw new Error(`datadir ${datadir} holds a ${new TextDecoder().decode(kind)} network, not an Ethereum chain`);
    }
    const schema = await level.get(META.schema);
    const genesisBytes = await level.get(META.genesis);
    const builtin = await level.get(META.builtinChain);
    if (!schema || (!genesisBytes && !builtin))
      throw new NotInitialisedError(
        `datadir ${datadir} is not initialised: run \`tracenode init --datadir ${datadir} --genesis genesis.json\` (or \`--from-node URL\` for a development node, or \`serve --follow URL --from finalized\` for an archive from block N)`,
      );
    // Another version is migrated (`progress` announces it) or refused, both versions named.
    await upgradeSchema(level, datadir, ETHEREUM_SCHEMA, progress);
    const { genesis, common } = builtin ? await builtinRules(new TextDecoder().decode(builtin)) : await genesisRules(genesisBytes!);
    // A chain merged by total difficulty: its merge block, found when it was imported.
    const mergeBlock = await readMergeBlock(level);
    if (mergeBlock !== undefined) scheduleMerge(common, mergeBlock);
    const op = genesis.config.optimism === undefined ? undefined : rollupFromGethGenesis(genesis);
    const store = new ChainStore(level, common, caches, op !== undefined);
    const start = await readArchiveStart(level);
    const closing: Array<() => Promise<void>> = [];
    return {
      datadir,
      level,
      genesis,
      common,
      store,
      ...(op ? { op } : {}),
      ...(start ? { start } : {}),
      beforeClose: (task) => void closing.push(task),
      close: async () => {
        for (let task = closing.pop(); task !== undefined; task = closing.pop()) await task();
        await level.close();
      },
    };
  } catch (err) {
    await level.close();
    throw err;
  }
}

/** The chain config of a stored genesis file and its Common. */
async function genesisRules(bytes: Uint8Array): Promise<{ genesis: GethGenesis; common: Common }> {
  const genesis = parseGenesis(new TextDecoder().decode(bytes));
  return { genesis, common: await createChainCommon(genesis) };
}

/** A built-in chain's Common, and the genesis config that gives its rules to what reads one. */
async function builtinRules(name: string): Promise<{ genesis: GethGenesis; common: Common }> {
  const common = await createBuiltinCommon(name);
  return { genesis: { config: gethConfigOf(common), alloc: {} }, common };
}

/** Where a schema migration's progress lines go by default: stderr, as import's progress. */
function writeProgress(line: string): void {
  process.stderr.write(`tracenode: ${line}\n`);
}

/**
 * The 4-byte value stored under the schema key: {@link SCHEMA_VERSION_BASE} for a datadir that
 * holds none of the newer keys, {@link SCHEMA_VERSION} (the default) for one that does.
 */
export function schemaBytes(version: number = SCHEMA_VERSION): Uint8Array {
  return versionBytes(version);
}

/** The write that marks a datadir as holding a key of the newest schema (put in the same batch as that key). */
export function newestSchemaOp(): BatchOp {
  return { type: 'put', key: META.schema, value: schemaBytes(SCHEMA_VERSION) };
}
