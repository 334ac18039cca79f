// Owns the storage slots whose history the demo README lists: which slots, and their value after
// every block (recorded only when it changes).
import type { StateManagerInterface } from '@ethereumjs/common';
import { bytesToBigInt, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import type { Address, Hex } from 'viem';
import { mappingSlot, slotHex } from '../lib/abi.js';
import type { DemoAddresses } from './demoContracts.js';
import { alice, bob, carol, STATEBOX } from './demoParams.js';

/** A watched slot: the contract's README name, where, and how the slot is computed. */
export interface Watch {
  contract: string;
  address: Address;
  slot: Hex;
  what: string;
  how: string;
}

/** A value a slot took from `block` on; `exists` false while the account does not exist. */
export interface SlotValue {
  block: number;
  value: bigint;
  exists: boolean;
}

export type WatchHistory = Watch & { history: SlotValue[] };

/** The watched slots of the contracts that exist so far (a contract's address is known once deployed). */
function watches(A: DemoAddresses): Watch[] {
  const w: Watch[] = [];
  const add = (contract: string, address: Address | undefined, slot: Hex, what: string, how: string) => {
    if (address) w.push({ contract, address, slot, what, how });
  };
  const [al, bo, ca] = [alice.address, bob.address, carol.address];
  add('StateBox', STATEBOX, slotHex(0), 'counter', 'plain slot 0');
  add('StateBox', STATEBOX, slotHex(1), 'owner', 'plain slot 1');
  add('StateBox', STATEBOX, mappingSlot(al, 2), 'balances[alice]', 'keccak256(pad32(alice) . pad32(2))');
  add('StateBox', STATEBOX, mappingSlot(bo, 2), 'balances[bob]', 'keccak256(pad32(bob) . pad32(2))');
  add('StateBox', STATEBOX, mappingSlot(7, mappingSlot(al, 3)), 'grid[alice][7]', 'keccak256(pad32(7) . keccak256(pad32(alice) . pad32(3)))');
  add('StateBox', STATEBOX, mappingSlot(1, mappingSlot(bo, 3)), 'grid[bob][1]', 'keccak256(pad32(1) . keccak256(pad32(bob) . pad32(3)))');
  add('DemoToken', A.DemoToken, mappingSlot(al, 0), 'balanceOf[alice]', 'keccak256(pad32(alice) . pad32(0))');
  add('DemoToken', A.DemoToken, mappingSlot(bo, 0), 'balanceOf[bob]', 'keccak256(pad32(bob) . pad32(0))');
  add('DemoToken', A.DemoToken, mappingSlot(ca, mappingSlot(al, 1)), 'allowance[alice][carol]', 'keccak256(pad32(carol) . keccak256(pad32(alice) . pad32(1)))');
  add('DemoToken', A.DemoToken, slotHex(2), 'totalSupply', 'plain slot 2');
  add('Caller', A.Caller, slotHex(0), 'value (written via DELEGATECALL/CALLCODE)', 'plain slot 0');
  add('Caller', A.Caller, slotHex(1), 'lastSender', 'plain slot 1');
  add('Caller', A.Caller, slotHex(2), 'caught', 'plain slot 2');
  add('Probe', A.Probe, slotHex(0), 'pings', 'plain slot 0');
  add('Child1', A.Child1, slotHex(0), 'tag', 'plain slot 0');
  add('Child2', A.Child2, slotHex(0), 'tag', 'plain slot 0');
  add('Child2', A.Child2, slotHex(1), 'note', 'plain slot 1');
  add('BlobProbe', A.BlobProbe, slotHex(0), 'lastBlobHash', 'plain slot 0');
  return w;
}

/** The history of every watched slot, keyed `<address>:<slot>`, in the order the slots were first seen. */
export type StorageHistory = Map<string, WatchHistory>;

/** Records the watched slots' values after block `n` into `history`. */
export async function recordStorage(history: StorageHistory, A: DemoAddresses, state: StateManagerInterface, n: number): Promise<void> {
  for (const w of watches(A)) {
    const address = createAddressFromString(w.address);
    const exists = (await state.getAccount(address)) !== undefined;
    const value = exists ? bytesToBigInt(await state.getStorage(address, hexToBytes(w.slot))) : 0n;
    const key = `${w.address}:${w.slot}`;
    let h = history.get(key);
    if (!h) {
      h = { ...w, history: [] };
      history.set(key, h);
    }
    const last = h.history[h.history.length - 1];
    if (!last || last.value !== value || last.exists !== exists) h.history.push({ block: n, value, exists });
  }
}
