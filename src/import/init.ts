import { bytesToHex, equalsBytes } from '@ethereumjs/util';
import { checkGenesis, createChainCommon, createGenesis } from '../chain/genesis.js';
import { schemaBytes } from '../chain/open.js';
import { ChainStore } from '../chain/store.js';
import type { Config } from '../config/settings.js';
import { type BatchOp, openDatabase } from '../db/database.js';
import { KIND_ETHEREUM, META } from '../db/keys.js';
import { createStateManager } from '../state/stateManager.js';
import { TrieDB } from '../state/trieDb.js';

/** What `init` did. */
export interface InitResult {
  hash: string;
  stateRoot: string;
  alreadyInitialised: boolean;
}

/**
 * Writes the genesis block and its state into a datadir, like `geth init`: one atomic batch with
 * the genesis file itself (the chain config every later open reads), the block, and the state trie.
 * Running it again with the same genesis is a no-op; with a different one it is refused.
 * `config` sizes the chain store's caches and the genesis state trie's node cache.
 */
export async function initDatadir(datadir: string, genesisText: string, config: Pick<Config, 'caches' | 'import'>): Promise<InitResult> {
  let json: unknown;
  try {
    json = JSON.parse(genesisText);
  } catch (err) {
    throw new Error(`genesis: invalid JSON: ${(err as Error).message}`);
  }
  const genesis = checkGenesis(json);
  const common = await createChainCommon(genesis);
  const { block, state } = await createGenesis(genesis, common);
  const level = await openDatabase(datadir);
  try {
    const kind = await level.get(META.kind);
    if (kind && new TextDecoder().decode(kind) !== KIND_ETHEREUM) {
      throw new Error(`datadir ${datadir} holds a ${new TextDecoder().decode(kind)} network, not an Ethereum chain`);
    }
    const store = new ChainStore(level, common, config.caches);
    const existing = await store.canonicalHash(0n);
    if (!existing) {
      for await (const _ of level.keys({ limit: 1 })) throw new Error(`datadir ${datadir} is not empty and holds no Ethereum chain`);
    }
    if (existing) {
      if (!equalsBytes(existing, block.hash())) {
        throw new Error(`datadir ${datadir} holds another chain (genesis ${bytesToHex(existing)}, this file gives ${bytesToHex(block.hash())})`);
      }
      return { hash: bytesToHex(existing), stateRoot: bytesToHex(block.header.stateRoot), alreadyInitialised: true };
    }
    const trieDb = new TrieDB(level);
    const sm = createStateManager(common, trieDb, { trieNodeCacheEntries: config.import.trieNodeCacheEntries });
    await sm.generateCanonicalGenesis(state);
    const root = await sm.getStateRoot();
    if (!equalsBytes(root, block.header.stateRoot)) {
      throw new Error(`genesis: computed stateRoot ${bytesToHex(root)} != header ${bytesToHex(block.header.stateRoot)}`);
    }
    const ops: BatchOp[] = [];
    trieDb.drain(ops);
    ops.push(...store.blockOps(block, [], block.header.difficulty));
    ops.push({ type: 'put', key: META.genesis, value: new TextEncoder().encode(genesisText) });
    ops.push({ type: 'put', key: META.schema, value: schemaBytes() });
    ops.push({ type: 'put', key: META.kind, value: new TextEncoder().encode(KIND_ETHEREUM) });
    await level.batch(ops);
    return { hash: bytesToHex(block.hash()), stateRoot: bytesToHex(root), alreadyInitialised: false };
  } finally {
    await level.close();
  }
}
