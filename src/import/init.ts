import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { bytesToHex, equalsBytes } from '@ethereumjs/util';
import { ancestorHashesOp, archiveStartOp, readArchiveStart } from '../chain/archiveStart.js';
import { createChainCommon, createGenesis, type GethGenesis, parseGenesis } from '../chain/genesis.js';
import { schemaBytes } from '../chain/open.js';
import type { StoredReceipt } from '../chain/receipts.js';
import { ChainStore } from '../chain/store.js';
import type { Config } from '../config/settings.js';
import { type BatchOp, type Level, openDatabase } from '../db/database.js';
import { KIND_ETHEREUM, META, SCHEMA_VERSION, SCHEMA_VERSION_BASE } from '../db/keys.js';
import { createStateManager } from '../state/stateManager.js';
import { type StateRootAlias, stateRootAliasOp, TrieDB } from '../state/trieDb.js';
import { adoptNodeGenesis } from './nodeGenesis.js';
import { headerChecksFor } from './validate.js';

/** What `init` did. */
export interface InitResult {
  hash: string;
  /** The state root of the genesis header. */
  stateRoot: string;
  alreadyInitialised: boolean;
  /**
   * Set when the genesis header names another state root than its state's (anvil): the root of
   * the state that was written, under which block 0's state is read.
   */
  genesisStateRoot?: string;
}

/** The genesis of a running node, as `follow/nodeGenesis.ts` reads it over JSON-RPC. */
export interface NodeGenesis {
  /** A geth genesis: the node's chain id and forks, block 0's header fields, the accounts it holds at block 0. */
  genesis: GethGenesis;
  /** Its Common (the one `block` was decoded with). */
  common: Common;
  /** The node's block 0 as it serves it, its hash checked. */
  block: Block;
  /** The root of the state the node holds at block 0, from its account proofs (keccak256 of their root node). */
  proofRoot: Uint8Array;
}

/**
 * Writes the genesis block and its state into a datadir, like `geth init`: one atomic batch with
 * the genesis file itself (the chain config every later open reads), the block, and the state trie.
 * Running it again with the same genesis is a no-op; with a different one it is refused.
 * `config` sizes the chain store's caches and the genesis state trie's node cache.
 */
export async function initDatadir(datadir: string, genesisText: string, config: Pick<Config, 'caches' | 'import'>): Promise<InitResult> {
  const genesis = parseGenesis(genesisText);
  const common = await createChainCommon(genesis);
  return writeGenesis(datadir, genesis, genesisText, common, config, (ours, root) => {
    if (!equalsBytes(root, ours.header.stateRoot)) {
      throw new Error(`genesis: computed stateRoot ${bytesToHex(root)} != header ${bytesToHex(ours.header.stateRoot)}`);
    }
    return { block: ours };
  });
}

/**
 * Writes the genesis of a running development node (`init --from-node`): the state of the
 * accounts it listed, and its own block 0, which must be the block those accounts and header
 * fields give but for what {@link adoptNodeGenesis} lets through (the roots of its empty lists;
 * under lenient header checks, anvil's empty-trie state root, recorded as the datadir's state-root
 * alias). The state written must be the one the node holds (`proofRoot`). Running it again
 * against the same node is a no-op; a datadir holding another chain is refused.
 */
export async function initDatadirFromNode(datadir: string, node: NodeGenesis, config: Pick<Config, 'caches' | 'import'>): Promise<InitResult> {
  const checks = headerChecksFor(config.import.headerChecks, node.common.chainId());
  const text = `${JSON.stringify(node.genesis, null, 2)}\n`;
  return writeGenesis(datadir, node.genesis, text, node.common, config, (ours, root) => {
    const { alias } = adoptNodeGenesis(ours.header, node.block.header, root, node.proofRoot, checks);
    return { block: node.block, alias };
  });
}

/**
 * The first block of an archive that starts at block N, as `follow/anchor.ts` reads it from the
 * upstream: the chain's rules (a built-in chain's name, or a geth genesis whose `config` gives
 * them, no allocation needed), block N (checked by its hash), its total difficulty and its
 * receipts (checked against its receiptsRoot).
 */
export interface AnchorBlock {
  rules: { builtin: string } | { genesisText: string };
  common: Common;
  block: Block;
  totalDifficulty: bigint;
  receipts: StoredReceipt[];
  /** The hashes of the blocks below it that BLOCKHASH can name, lowest first, checked (META.archiveAncestors); the follower fetches them when absent. */
  ancestors?: Uint8Array[];
}

/**
 * Writes an archive that starts at block N (`init --from-node URL --at N`, or `serve --follow URL
 * --from N` on an empty datadir): the chain's rules, block N as the canonical head with its
 * receipts and total difficulty, and the start (META.archiveStart). No state: it is fetched as it
 * is read. Running it again with the same block is a no-op; a datadir that holds anything else is
 * refused.
 */
export async function initDatadirAt(datadir: string, anchor: AnchorBlock, config: Pick<Config, 'caches'>): Promise<InitResult> {
  const { block } = anchor;
  const result: InitResult = { hash: bytesToHex(block.hash()), stateRoot: bytesToHex(block.header.stateRoot), alreadyInitialised: false };
  const level = await openDatabase(datadir);
  try {
    const existing = await readArchiveStart(level);
    if (existing !== undefined) {
      if (existing.number !== block.header.number || !equalsBytes(existing.hash, block.hash())) {
        throw new Error(
          `datadir ${datadir} holds an archive from block ${existing.number} (${bytesToHex(existing.hash)}), not from block ${block.header.number} (${result.hash})`,
        );
      }
      return { ...result, alreadyInitialised: true };
    }
    for await (const _ of level.keys({ limit: 1 })) throw new Error(`datadir ${datadir} is not empty: an archive from block N starts in an empty datadir`);
    const store = new ChainStore(level, anchor.common, config.caches);
    const ops: BatchOp[] = store.blockOps(block, anchor.receipts, anchor.totalDifficulty);
    ops.push(archiveStartOp({ number: block.header.number, hash: block.hash() }));
    if (anchor.ancestors !== undefined) ops.push(ancestorHashesOp(anchor.ancestors));
    // An archive from block N is schema 2: a release that does not know archiveStart would read it as a chain from its genesis.
    const rules = anchor.rules;
    if ('builtin' in rules) ops.push({ type: 'put', key: META.builtinChain, value: new TextEncoder().encode(rules.builtin) });
    else ops.push({ type: 'put', key: META.genesis, value: new TextEncoder().encode(rules.genesisText) });
    ops.push({ type: 'put', key: META.schema, value: schemaBytes() });
    ops.push({ type: 'put', key: META.kind, value: new TextEncoder().encode(KIND_ETHEREUM) });
    await level.batch(ops);
    return result;
  } finally {
    await level.close();
  }
}

/** What to store as block 0, given ours and the state root computed from the allocation. */
type ChooseGenesis = (ours: Block, computedRoot: Uint8Array) => { block: Block; alias?: StateRootAlias };

async function writeGenesis(
  datadir: string,
  genesis: GethGenesis,
  genesisText: string,
  common: Common,
  config: Pick<Config, 'caches' | 'import'>,
  choose: ChooseGenesis,
): Promise<InitResult> {
  const { block: ours, state } = await createGenesis(genesis, common);
  const level = await openDatabase(datadir);
  try {
    const store = new ChainStore(level, common, config.caches);
    const trieDb = new TrieDB(level);
    const sm = await createStateManager(common, trieDb, { trieNodeCacheEntries: config.import.trieNodeCacheEntries });
    await sm.generateCanonicalGenesis(state);
    const root = await sm.getStateRoot();
    const { block, alias } = choose(ours, root);
    const existing = await existingGenesis(level, datadir, store);
    if (existing) {
      if (!equalsBytes(existing, block.hash())) {
        throw new Error(`datadir ${datadir} holds another chain (genesis ${bytesToHex(existing)}, this genesis is ${bytesToHex(block.hash())})`);
      }
      return { hash: bytesToHex(existing), stateRoot: bytesToHex(block.header.stateRoot), alreadyInitialised: true };
    }
    const ops: BatchOp[] = [];
    trieDb.drain(ops);
    ops.push(...store.blockOps(block, [], block.header.difficulty));
    if (alias) ops.push(stateRootAliasOp(alias));
    ops.push({ type: 'put', key: META.genesis, value: new TextEncoder().encode(genesisText) });
    // Schema 2 only when the datadir holds one of its keys (the alias): others stay readable by older releases.
    ops.push({ type: 'put', key: META.schema, value: schemaBytes(alias ? SCHEMA_VERSION : SCHEMA_VERSION_BASE) });
    ops.push({ type: 'put', key: META.kind, value: new TextEncoder().encode(KIND_ETHEREUM) });
    await level.batch(ops);
    const result: InitResult = { hash: bytesToHex(block.hash()), stateRoot: bytesToHex(block.header.stateRoot), alreadyInitialised: false };
    if (alias) result.genesisStateRoot = bytesToHex(alias.trieRoot);
    return result;
  } finally {
    await level.close();
  }
}

/** The genesis hash the datadir holds; undefined when it is empty; throws when it holds something else. */
async function existingGenesis(level: Level, datadir: string, store: ChainStore): Promise<Uint8Array | undefined> {
  const kind = await level.get(META.kind);
  if (kind && new TextDecoder().decode(kind) !== KIND_ETHEREUM) {
    throw new Error(`datadir ${datadir} holds a ${new TextDecoder().decode(kind)} network, not an Ethereum chain`);
  }
  const start = await readArchiveStart(level);
  if (start) throw new Error(`datadir ${datadir} holds an archive from block ${start.number}, not a chain from its genesis`);
  const existing = await store.canonicalHash(0n);
  if (!existing) {
    for await (const _ of level.keys({ limit: 1 })) throw new Error(`datadir ${datadir} is not empty and holds no Ethereum chain`);
  }
  return existing;
}
