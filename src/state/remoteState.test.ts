import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { Account, Address, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/chains.js';
import { testConfig } from '../../test/helpers/testConfig.js';
import { keccak256 } from '../codec/keccak.js';
import { type BatchOp, type Level, openDatabase } from '../db/database.js';
import { PREFIX } from '../db/keys.js';
import { createStateManager } from './stateManager.js';
import { StateReader } from './stateReader.js';
import { MissingTrieNodeError, RemoteStateError, type StateProof, type StateSource } from './stateSource.js';
import { TrieDB } from './trieDb.js';

/**
 * Fetch on miss (`remoteState.ts`) with a fake source: a datadir that holds a state (the
 * "upstream") answers the proofs and code an empty partial datadir asks for. Every read of the
 * partial datadir must equal the full one's; a key read twice is fetched once; a proof, once
 * filled, is the full one's, node for node; a source that alters a node or the code has nothing
 * stored and is answered `invalid`; no source, `noSource`; a proof of another state, `unavailable`.
 */

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun });
const tmp = tempDir('tracenode-remote-state-');
const caches = testConfig().caches;
const address = (n: number) => new Address(keccak256(Uint8Array.of(n)).subarray(12));
const slot = (n: number) => {
  const s = new Uint8Array(32);
  s[31] = n;
  return s;
};
const CONTRACT = address(0);
const CODE = hexToBytes('0x6001600055600160015500');
const ABSENT = address(255);
let full: Level;
let root: Uint8Array;
let upstream: StateReader;

/** 64 funded accounts (a trie some nodes deep) and a contract with code and 20 slots. */
async function fullState(): Promise<Level> {
  const level = await openDatabase(`${tmp.dir}/full`);
  const trieDb = new TrieDB(level);
  const sm = await createStateManager(common, trieDb, { trieNodeCacheEntries: 0 });
  await sm.checkpoint();
  for (let i = 1; i < 64; i++) await sm.putAccount(address(i), new Account(BigInt(i), BigInt(i) * 10n ** 18n));
  await sm.putAccount(CONTRACT, new Account(1n, 7n));
  await sm.putCode(CONTRACT, CODE);
  for (let i = 1; i <= 20; i++) await sm.putStorage(CONTRACT, slot(i), Uint8Array.of(i * 3));
  await sm.commit();
  await sm.flush();
  root = await sm.getStateRoot();
  const ops: BatchOp[] = [];
  trieDb.drain(ops);
  await level.batch(ops);
  return level;
}

/** A source answering from the full datadir, counting calls; `alter` changes what it answers. */
function fakeSource(alter: { proof?: (p: StateProof) => StateProof; code?: (c: Uint8Array) => Uint8Array; fail?: boolean; at?: Uint8Array } = {}) {
  const calls = { proof: 0, code: 0 };
  const source: StateSource = {
    async proveAccount(a, slots, stateRoot) {
      calls.proof++;
      if (alter.fail) throw new RemoteStateError('unreachable', 'upstream unreachable: ECONNREFUSED; retry later');
      const at = alter.at ?? stateRoot;
      const p = await upstream.proof(at, a, slots);
      const proof = { root: at, accountProof: p.accountProof, storageProofs: p.storageProof.map((s) => s.proof) };
      return alter.proof ? alter.proof(proof) : proof;
    },
    async code(a, stateRoot) {
      calls.code++;
      const code = await upstream.code(stateRoot, a);
      return alter.code ? alter.code(code) : code;
    },
  };
  return { source, calls };
}

let n = 0;
/** An empty partial datadir read through `source`. */
async function partial(source: StateSource | undefined): Promise<{ level: Level; reader: StateReader }> {
  const level = await openDatabase(`${tmp.dir}/partial-${n++}`);
  return { level, reader: new StateReader(level, caches, { source }) };
}

/** State nodes and code the datadir holds. */
async function stateKeys(level: Level): Promise<number> {
  return (await level.keys({ gte: Uint8Array.of(PREFIX.state), lt: Uint8Array.of(PREFIX.state + 1) }).all()).length;
}

beforeAll(async () => {
  full = await fullState();
  upstream = new StateReader(full, caches);
});

afterAll(async () => {
  await full?.close();
  tmp.cleanup();
});

describe('fetch on miss', () => {
  it('reads every kind of key as the full datadir does, each key fetched once', async () => {
    const { source, calls } = fakeSource();
    const { level, reader } = await partial(source);
    for (const a of [address(1), address(33), CONTRACT, ABSENT]) {
      expect(await reader.account(root, a.bytes)).toEqual(await upstream.account(root, a.bytes));
    }
    const accountFetches = calls.proof;
    expect(accountFetches).toBeGreaterThanOrEqual(1);
    expect(accountFetches).toBeLessThanOrEqual(4);
    expect(await reader.storage(root, CONTRACT.bytes, slot(7))).toEqual(Uint8Array.of(21));
    expect(await reader.storage(root, CONTRACT.bytes, slot(99))).toEqual(new Uint8Array());
    expect(await reader.storage(root, ABSENT.bytes, slot(1))).toEqual(new Uint8Array());
    expect(bytesToHex(await reader.code(root, CONTRACT.bytes))).toBe(bytesToHex(CODE));
    expect(calls.code).toBe(1);
    const before = { ...calls };
    // Read again: the read cache, then (a fresh reader on the same datadir) what was stored.
    expect(await reader.storage(root, CONTRACT.bytes, slot(7))).toEqual(Uint8Array.of(21));
    const again = new StateReader(level, caches, { source });
    expect((await again.account(root, address(33).bytes))?.balance).toBe(33n * 10n ** 18n);
    expect(await again.storage(root, CONTRACT.bytes, slot(7))).toEqual(Uint8Array.of(21));
    expect(bytesToHex(await again.code(root, CONTRACT.bytes))).toBe(bytesToHex(CODE));
    expect(calls).toEqual(before);
    expect(reader.reads.remote?.stats()).toEqual({ account: accountFetches, storage: 2, code: 1, proof: 0 });
    await level.close();
  });

  it('a proof that meets missing nodes is filled in one fetch and is the full one, node for node', async () => {
    const { source, calls } = fakeSource();
    const { level, reader } = await partial(source);
    const slots = [slot(1), slot(20), slot(200)];
    const ours = await reader.proof(root, CONTRACT.bytes, slots);
    const theirs = await upstream.proof(root, CONTRACT.bytes, slots);
    expect(ours.accountProof.map(bytesToHex)).toEqual(theirs.accountProof.map(bytesToHex));
    expect(ours.storageProof.map((p) => [p.value, p.proof.map(bytesToHex)])).toEqual(theirs.storageProof.map((p) => [p.value, p.proof.map(bytesToHex)]));
    expect(calls.proof).toBe(1);
    await level.close();
  });

  it('a node the datadir does not hold never reads as an absent account', async () => {
    const level = await openDatabase(`${tmp.dir}/bare`);
    const db = new TrieDB(level, true);
    await expect(db.get(bytesToHex(root).slice(2))).rejects.toBeInstanceOf(MissingTrieNodeError);
    // Without a source, a read names what is missing and why.
    const reader = new StateReader(level, caches, {});
    await expect(reader.account(root, address(1).bytes)).rejects.toMatchObject({ name: 'RemoteStateError', kind: 'noSource' });
    await level.close();
  });

  it('a source that alters a proof node gets nothing stored (invalid)', async () => {
    const tamper = (p: StateProof): StateProof => {
      const last = p.accountProof.length - 1;
      const altered = p.accountProof.map((node, i) => (i === last ? Uint8Array.from(node, (b, j) => (j === node.length - 1 ? b ^ 1 : b)) : node));
      return { ...p, accountProof: altered };
    };
    const { source } = fakeSource({ proof: tamper });
    const { level, reader } = await partial(source);
    await expect(reader.account(root, address(5).bytes)).rejects.toMatchObject({ name: 'RemoteStateError', kind: 'invalid', retryable: true });
    expect(await stateKeys(level)).toBe(0);
    await level.close();
  });

  it('a source that alters the code gets nothing stored (invalid); an honest one then serves it', async () => {
    const { source } = fakeSource({ code: (c) => Uint8Array.from(c, (b, i) => (i === 0 ? b ^ 1 : b)) });
    const { level, reader } = await partial(source);
    expect((await reader.account(root, CONTRACT.bytes))?.nonce).toBe(1n);
    const held = await stateKeys(level);
    await expect(reader.code(root, CONTRACT.bytes)).rejects.toMatchObject({ kind: 'invalid' });
    expect(await stateKeys(level)).toBe(held);
    const honest = new StateReader(level, caches, { source: fakeSource().source });
    expect(bytesToHex(await honest.code(root, CONTRACT.bytes))).toBe(bytesToHex(CODE));
    await level.close();
  });

  it('an unreachable source fails the read (retryable); what is held still answers', async () => {
    const { level, reader } = await partial(fakeSource().source);
    expect((await reader.account(root, address(2).bytes))?.nonce).toBe(2n);
    const down = new StateReader(level, caches, { source: fakeSource({ fail: true }).source });
    expect((await down.account(root, address(2).bytes))?.nonce).toBe(2n);
    await expect(down.storage(root, CONTRACT.bytes, slot(3))).rejects.toMatchObject({ kind: 'unreachable', retryable: true });
    await level.close();
  });

  it('a proof of another state does not hold the missing node (unavailable)', async () => {
    // The source answers at another block (its state `root`): the proof verifies, but the node
    // missing here (the root of the state read) is not in it.
    const { level, reader } = await partial(fakeSource({ at: root }).source);
    const elsewhere = keccak256(Uint8Array.of(1, 2, 3));
    await expect(reader.account(elsewhere, address(3).bytes)).rejects.toMatchObject({ kind: 'unavailable', retryable: false });
    expect(await stateKeys(level)).toBe(0);
    await level.close();
  });
});
