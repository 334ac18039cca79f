import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, bytesToHex, KECCAK256_RLP, MapDB, ValueEncoding } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../../../test/helpers/testConfig.js';
import { StateReadCache } from '../../state/readCache.js';
import { overlayTrie } from '../trieOverlay.js';
import { SimulationState } from './simState.js';

/*
 * The roots of a simulation's state against @ethereumjs's own MerkleStateManager (how simulations
 * computed them before): both start from the same archived state, take the same writes — accounts
 * changed, created and deleted, slots set and zeroed, storage wiped and rebuilt, some of it inside
 * checkpoints that are reverted — and must name the same root after every block.
 */

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });

/** A seeded generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const addressOf = (n: number) => new Address(Uint8Array.from({ length: 20 }, (_, i) => (i === 19 ? n : i === 0 ? 0x10 : 0)));
const slotOf = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? n & 0xff : i === 30 ? n >> 8 : 0));

/** An archived state of 30 accounts, every third with 0–40 slots. */
async function archivedState(db: MapDB<string, Uint8Array>): Promise<Uint8Array> {
  const next = random(7);
  const trie = () => new MerklePatriciaTrie({ db: db as never, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes });
  const state = trie();
  for (let n = 0; n < 30; n++) {
    let storageRoot = KECCAK256_RLP;
    if (n % 3 === 0) {
      const storage = trie();
      const slots = Math.floor(next() * 40);
      for (let s = 0; s < slots; s++) await storage.put(slotOf(s * 7), RLP.encode(Uint8Array.of(1 + Math.floor(next() * 250))));
      storageRoot = storage.root();
    }
    await state.put(addressOf(n).bytes, new Account(BigInt(n), BigInt(n) * 1000n, storageRoot).serialize());
  }
  return state.root();
}

type Write = (sm: MerkleStateManager | SimulationState) => Promise<void>;

/** One random write, applied the same way to both states. */
function randomWrite(next: () => number): Write {
  const address = addressOf(Math.floor(next() * 36)); // 30 archived, 6 new
  const pick = next();
  if (pick < 0.35) {
    const slot = slotOf(Math.floor(next() * 50) * 7);
    const value = next() < 0.3 ? new Uint8Array() : Uint8Array.of(Math.floor(next() * 256), 1);
    return async (sm) => {
      if ((await sm.getAccount(address)) === undefined) await sm.putAccount(address, new Account(1n));
      await sm.putStorage(address, slot, value);
    };
  }
  if (pick < 0.7) {
    const balance = BigInt(Math.floor(next() * 1e6));
    return async (sm) => {
      const account = (await sm.getAccount(address)) ?? new Account();
      account.balance = balance;
      account.nonce += 1n;
      await sm.putAccount(address, account);
    };
  }
  if (pick < 0.85) return (sm) => sm.deleteAccount(address);
  return async (sm) => {
    if ((await sm.getAccount(address)) !== undefined) await sm.clearStorage(address);
  };
}

describe('SimulationState', () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`names the same root as MerkleStateManager after each block (writes, deletions, wipes, reverts; seed ${seed})`, async () => {
      const db = new MapDB<string, Uint8Array>();
      const base = await archivedState(db);
      const reads = new StateReadCache(db as never, testConfig().caches.stateReadEntries);
      const sim = await SimulationState.open(reads, base, db as never);
      const msm = new MerkleStateManager({ common, trie: await overlayTrie(db as never, base), caches: new Caches() });
      expect(bytesToHex(await sim.getStateRoot())).toBe(bytesToHex(base));
      const next = random(seed);
      for (let block = 0; block < 5; block++) {
        for (let tx = 0; tx < 6; tx++) {
          const writes = Array.from({ length: 1 + Math.floor(next() * 6) }, () => randomWrite(next));
          const revert = next() < 0.3;
          for (const sm of [sim, msm]) {
            await sm.checkpoint();
            for (const write of writes) await write(sm);
            if (revert) await sm.revert();
            else await sm.commit();
          }
        }
        expect(bytesToHex(await sim.getStateRoot()), `block ${block}`).toBe(bytesToHex(await msm.getStateRoot()));
        // After a root, every account reads as it is stored: its storage root too.
        for (let n = 0; n < 36; n++) {
          const [a, b] = [await sim.getAccount(addressOf(n)), await msm.getAccount(addressOf(n))];
          expect(a === undefined ? undefined : bytesToHex(a.serialize()), `block ${block}, account ${n}`).toBe(
            b === undefined ? undefined : bytesToHex(b.serialize()),
          );
        }
      }
    });
  }

  it('a storage wiped again in a later block loses what the earlier block wrote', async () => {
    const db = new MapDB<string, Uint8Array>();
    const base = await archivedState(db);
    const reads = new StateReadCache(db as never, testConfig().caches.stateReadEntries);
    const sim = await SimulationState.open(reads, base, db as never);
    const msm = new MerkleStateManager({ common, trie: await overlayTrie(db as never, base), caches: new Caches() });
    const a = addressOf(3);
    for (const sm of [sim, msm]) {
      await sm.clearStorage(a);
      await sm.putStorage(a, slotOf(1), Uint8Array.of(5));
    }
    expect(bytesToHex(await sim.getStateRoot())).toBe(bytesToHex(await msm.getStateRoot()));
    for (const sm of [sim, msm]) {
      await sm.clearStorage(a);
      await sm.putStorage(a, slotOf(2), Uint8Array.of(6));
    }
    expect(bytesToHex(await sim.getStateRoot())).toBe(bytesToHex(await msm.getStateRoot()));
    expect(await sim.getStorage(a, slotOf(1))).toEqual(new Uint8Array());
  });
});
