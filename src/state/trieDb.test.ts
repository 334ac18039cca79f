import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { Account, Address, bytesToHex, KECCAK256_RLP } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/chains.js';
import { testConfig } from '../../test/helpers/testConfig.js';
import { keccak256 } from '../codec/keccak.js';
import { type BatchOp, type Level, openDatabase } from '../db/database.js';
import { createStateManager } from './stateManager.js';
import { StateReader } from './stateReader.js';
import { stateRootAliasOp, TrieDB } from './trieDb.js';

/**
 * The state-root alias (META.stateRootAlias): a datadir whose genesis header names the empty
 * trie's root (anvil) keeps its genesis state under the computed root, and every state trie opened
 * at the header's root opens there — the importer's (createStateManager) and the readers' — while
 * empty storage tries, which share the empty root, stay empty.
 */

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun });
const A = new Address(new Uint8Array(20).fill(0xaa));
const B = new Address(new Uint8Array(20).fill(0xbb));
const SLOT1 = new Uint8Array(32);
SLOT1[31] = 1;
const tmp = tempDir('tracenode-alias-');
let aliased: Level;
let plain: Level;
let root: Uint8Array;

/** A datadir holding the state {A: balance 5, B: nonce 1, storage {1: 7}}; `alias` adds the empty root's alias of it. */
async function datadir(name: string, alias: boolean): Promise<Level> {
  const level = await openDatabase(`${tmp.dir}/${name}`);
  const trieDb = new TrieDB(level);
  const sm = await createStateManager(common, trieDb, { trieNodeCacheEntries: 0 });
  await sm.checkpoint();
  await sm.putAccount(A, new Account(0n, 5n));
  await sm.putAccount(B, new Account(1n, 0n));
  await sm.putStorage(B, SLOT1, Uint8Array.of(7));
  await sm.commit();
  await sm.flush();
  root = await sm.getStateRoot();
  const ops: BatchOp[] = [];
  trieDb.drain(ops);
  if (alias) ops.push(stateRootAliasOp({ headerRoot: KECCAK256_RLP, trieRoot: root }));
  await level.batch(ops);
  return level;
}

beforeAll(async () => {
  aliased = await datadir('aliased', true);
  plain = await datadir('plain', false);
});

afterAll(async () => {
  await aliased?.close();
  await plain?.close();
  tmp.cleanup();
});

describe('the state-root alias', () => {
  it('TrieDB maps the aliased header root to the trie root, and every other root to itself', async () => {
    const db = new TrieDB(aliased);
    expect(bytesToHex(await db.stateTrieRoot(KECCAK256_RLP))).toBe(bytesToHex(root));
    expect(bytesToHex(await db.stateTrieRoot(root))).toBe(bytesToHex(root));
    expect(bytesToHex(await new TrieDB(plain).stateTrieRoot(KECCAK256_RLP))).toBe(bytesToHex(KECCAK256_RLP));
  });

  it('the readers see the state at the header root; its empty storage tries stay empty; proofs start at the trie root', async () => {
    const reader = new StateReader(aliased, testConfig().caches);
    expect((await reader.account(KECCAK256_RLP, A.bytes))?.balance).toBe(5n);
    expect(await reader.storage(KECCAK256_RLP, B.bytes, SLOT1)).toEqual(Uint8Array.of(7));
    expect(await reader.storage(KECCAK256_RLP, A.bytes, new Uint8Array(32))).toEqual(new Uint8Array());
    const proof = await reader.proof(KECCAK256_RLP, A.bytes, [new Uint8Array(32)]);
    expect(bytesToHex(keccak256(proof.accountProof[0]))).toBe(bytesToHex(root));
    expect(proof.storageProof).toEqual([{ value: 0n, proof: [] }]);
    // Without the alias the header's root is the empty state it names.
    expect(await new StateReader(plain, testConfig().caches).account(KECCAK256_RLP, A.bytes)).toBeUndefined();
  });

  it("the importer's state manager opens at the trie root, and an empty account's storage reads empty", async () => {
    const sm = await createStateManager(common, new TrieDB(aliased), { trieNodeCacheEntries: 0, root: KECCAK256_RLP });
    expect(bytesToHex(await sm.getStateRoot())).toBe(bytesToHex(root));
    expect((await sm.getAccount(A))?.balance).toBe(5n);
    expect(await sm.getStorage(A, new Uint8Array(32))).toEqual(new Uint8Array());
  });
});
