import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { CODEHASH_PREFIX } from '@ethereumjs/statemanager';
import { Account, Address, bytesToUnprefixedHex, concatBytes, MapDB, ValueEncoding } from '@ethereumjs/util';
import { beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../test/helpers/testConfig.js';
import { keccak256 } from '../codec/keccak.js';
import { StateReadCache } from '../state/readCache.js';
import { OverlayState } from './overlayDb.js';

const A = new Address(new Uint8Array(20).fill(0xaa));
const B = new Address(new Uint8Array(20).fill(0xbb));
const slot = (n: number) => {
  const s = new Uint8Array(32);
  s[31] = n;
  return s;
};
const CODE = Uint8Array.of(0x60, 0x00, 0x54);

let db: MapDB<string, Uint8Array>;
let root: Uint8Array;

// A tiny archived state: A has nonce 1, balance 100, code CODE and storage {1: 7, 2: 9}.
beforeAll(async () => {
  db = new MapDB<string, Uint8Array>();
  const trie = () => new MerklePatriciaTrie({ db: db as never, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes });
  const storage = trie();
  await storage.put(slot(1), RLP.encode(Uint8Array.of(7)));
  await storage.put(slot(2), RLP.encode(Uint8Array.of(9)));
  const codeHash = keccak256(CODE);
  await db.put(bytesToUnprefixedHex(concatBytes(CODEHASH_PREFIX, codeHash)), CODE);
  const state = trie();
  await state.put(A.bytes, new Account(1n, 100n, storage.root(), codeHash).serialize());
  root = state.root();
});

const overlay = (cache = new StateReadCache(db as never, testConfig().caches.stateReadEntries)) => new OverlayState(cache, root);

describe('OverlayState', () => {
  it('reads the archived account, storage and code', async () => {
    const s = overlay();
    expect((await s.getAccount(A))?.balance).toBe(100n);
    expect(await s.getAccount(B)).toBeUndefined();
    expect(await s.getStorage(A, slot(1))).toEqual(Uint8Array.of(7));
    expect(await s.getStorage(A, slot(3))).toEqual(new Uint8Array());
    expect(await s.getCode(A)).toEqual(CODE);
  });

  it('returns copies: mutating a read account changes nothing until put', async () => {
    const s = overlay();
    const a = (await s.getAccount(A))!;
    a.balance = 1n;
    expect((await s.getAccount(A))?.balance).toBe(100n);
    await s.putAccount(A, a);
    expect((await s.getAccount(A))?.balance).toBe(1n);
  });

  it('journals writes: revert undoes a checkpoint, commit keeps it', async () => {
    const s = overlay();
    await s.checkpoint();
    await s.putStorage(A, slot(1), Uint8Array.of(0, 0, 5)); // stored unpadded
    await s.checkpoint();
    await s.putStorage(A, slot(1), Uint8Array.of(6));
    await s.putAccount(B, new Account(0n, 5n));
    await s.revert();
    expect(await s.getStorage(A, slot(1))).toEqual(Uint8Array.of(5));
    expect(await s.getAccount(B)).toBeUndefined();
    await s.commit();
    expect(await s.getStorage(A, slot(1))).toEqual(Uint8Array.of(5));
  });

  it('clearStorage hides the archived storage until reverted', async () => {
    const s = overlay();
    await s.checkpoint();
    await s.clearStorage(A);
    expect(await s.getStorage(A, slot(2))).toEqual(new Uint8Array());
    await s.putStorage(A, slot(2), Uint8Array.of(1));
    expect(await s.getStorage(A, slot(2))).toEqual(Uint8Array.of(1));
    await s.revert();
    expect(await s.getStorage(A, slot(2))).toEqual(Uint8Array.of(9));
  });

  it('deleteAccount removes the account, its code and storage', async () => {
    const s = overlay();
    await s.deleteAccount(A);
    expect(await s.getAccount(A)).toBeUndefined();
    expect(await s.getCode(A)).toEqual(new Uint8Array());
    expect(await s.getStorage(A, slot(1))).toEqual(new Uint8Array());
  });

  it('putCode sets the code hash (creating the account)', async () => {
    const s = overlay();
    await s.putCode(B, Uint8Array.of(0xfe));
    expect(await s.getCode(B)).toEqual(Uint8Array.of(0xfe));
    expect((await s.getAccount(B))?.codeHash).toEqual(keccak256(Uint8Array.of(0xfe)));
  });

  it('originalStorageCache keeps the value from before the first write', async () => {
    const s = overlay();
    expect(await s.originalStorageCache.get(A, slot(1))).toEqual(Uint8Array.of(7));
    await s.putStorage(A, slot(1), Uint8Array.of(8));
    expect(await s.originalStorageCache.get(A, slot(1))).toEqual(Uint8Array.of(7));
  });

  it('two overlays over one shared cache never see each other’s writes', async () => {
    const cache = new StateReadCache(db as never, testConfig().caches.stateReadEntries);
    const [s1, s2] = [overlay(cache), overlay(cache)];
    await s1.putStorage(A, slot(1), Uint8Array.of(1));
    await s1.putAccount(A, new Account(9n, 9n));
    expect(await s2.getStorage(A, slot(1))).toEqual(Uint8Array.of(7));
    expect((await s2.getAccount(A))?.nonce).toBe(1n);
    expect((await overlay(cache).getAccount(A))?.balance).toBe(100n);
  });
});
