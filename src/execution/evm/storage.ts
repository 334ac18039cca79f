import type { StateManagerInterface } from '@ethereumjs/common';
import type { Account, Address } from '@ethereumjs/util';
import { checkFingerprint, unsupported } from './upstream.js';

/*
 * anvil's state (`execution/loadedState.ts`): anvil keeps every storage slot a transaction reached
 * and every account it looked up, zero or empty, where the specification removes them.
 */

/** What the storage hooks use of a MerkleStateManager. */
interface StorageWriter {
  _caches?: { storage?: unknown };
  _writeContractStorage(address: Address, account: Account, key: Uint8Array, value: Uint8Array): Promise<void>;
  _modifyContractStorage(
    address: Address,
    account: Account,
    modify: (trie: { put(k: Uint8Array, v: Uint8Array): Promise<void> }, done: () => void) => void,
  ): Promise<void>;
}

/**
 * Makes `sm` (a MerkleStateManager) write a zero into a storage trie as a leaf holding rlp(0) =
 * 0x80 instead of deleting the key, as anvil does; a non-zero value is written as before. Every
 * storage write reaches the trie through `_writeContractStorage` (`putStorage` without caches, or
 * the storage cache's `flush`). Throws when the method is not the pinned release's, or
 * `_modifyContractStorage` is missing.
 */
export function keepZeroStorageLeaves(sm: StateManagerInterface): void {
  const self = sm as unknown as Partial<StorageWriter>;
  checkFingerprint('MerkleStateManager._writeContractStorage', self._writeContractStorage);
  const modify = self._modifyContractStorage;
  if (typeof modify !== 'function') throw unsupported('@ethereumjs/statemanager', 'MerkleStateManager._modifyContractStorage', 'the trie a write goes to');
  const write = self._writeContractStorage as StorageWriter['_writeContractStorage'];
  self._writeContractStorage = async (address, account, key, value) => {
    if (value instanceof Uint8Array && value.length > 0) return write.call(sm, address, account, key, value);
    // As the original's deletion: the trie is changed in the callback, which calls `done` to store it.
    return modify.call(sm, address, account, async (trie, done) => {
      await trie.put(key, Uint8Array.of(0x80));
      done();
    });
  };
}

/**
 * Makes `sm` keep every storage slot a transaction read or wrote in a frame that did not revert
 * as a leaf, a zero as 0x80 ({@link keepZeroStorageLeaves}): MerkleStateManager's storage cache
 * writes back at the end of a block every slot its `getStorage` read (a read enters the cache's
 * diff as a write does, and a revert drops both). Throws when `getStorage` is not the pinned
 * release's, or `sm` has no storage cache.
 */
export function keepLoadedSlots(sm: StateManagerInterface): void {
  checkFingerprint('MerkleStateManager.getStorage', (Object.getPrototypeOf(sm) as Partial<StateManagerInterface> | null)?.getStorage);
  if ((sm as unknown as StorageWriter)._caches?.storage === undefined) throw new Error('keepLoadedSlots: the state manager has no storage cache');
  keepZeroStorageLeaves(sm);
}
