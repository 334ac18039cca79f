import type { StateManagerInterface } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { type Account, type Address, unpadBytes } from '@ethereumjs/util';
import { checkFingerprint, unsupported } from './upstream.js';

/*
 * anvil's state (`execution/loadedState.ts`): anvil keeps every storage slot a transaction reached
 * and every account it looked up, zero or empty, where the specification removes them.
 */

/** What the storage hooks use of a MerkleStateManager. */
interface StorageWriter {
  _caches?: { storage?: { put(address: Address, key: Uint8Array, value: Uint8Array): void } };
  getAccount(address: Address): Promise<Account | undefined>;
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

/**
 * Makes `sm` (a MerkleStateManager with a storage cache) keep a storage write in the cache until
 * the cache is flushed (the outermost checkpoint committed, or the state root read), as the cache
 * is meant to. 10.1.3's `putStorage` writes the cache *and* the trie: the cache's `put` returns
 * nothing, so the `??` after it always writes through. Every SSTORE of a block then reached the
 * storage trie in turn, zeros as deletions, and a deletion that empties a branch for a moment
 * reads the branch's other child to merge it — a node no other client reads (their tries see a
 * block's last values), so an execution witness does not hold it, and a run from one stopped for
 * it (OP Sepolia blocks 26,207,960 and 26,207,962; mainnet blocks of `test/follow/realBlocks`).
 * The trie still sees every slot's last value when the cache is flushed. Throws when `putStorage`
 * is not the pinned release's, or `sm` has no storage cache.
 */
export function writeStorageBack(sm: StateManagerInterface): void {
  checkFingerprint('MerkleStateManager.putStorage', (Object.getPrototypeOf(sm) as Partial<StateManagerInterface> | null)?.putStorage);
  const self = sm as unknown as StorageWriter;
  const cache = self._caches?.storage;
  if (cache === undefined) throw new Error('writeStorageBack: the state manager has no storage cache');
  sm.putStorage = async (address, key, value) => {
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long');
    if (value.length > 32) throw new Error('Storage value cannot be longer than 32 bytes');
    if ((await self.getAccount(address)) === undefined) throw new Error('putStorage() called on non-existing account');
    cache.put(address, key, RLP.encode(unpadBytes(value)));
  };
}
