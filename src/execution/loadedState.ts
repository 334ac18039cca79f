import { Account, Address, bytesToUnprefixedHex, unprefixedHexToBytes } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { keepTouchedAccounts } from './evm/journal.js';
import { keepLoadedSlots } from './evm/storage.js';

/**
 * Executing as anvil (1.7.1) does (`chain/loadedState.ts` records that a chain needs it). anvil
 * writes back into its state what a transaction's execution loaded:
 * - every account it looked up — a call's target, the code a DELEGATECALL or CALLCODE borrows, an
 *   address BALANCE or EXTCODE* reads, a creation's address — in a frame that succeeded or not,
 *   stays, as an empty account when it holds nothing: EIP-161 removes touched empty accounts, and
 *   an account only read is never added;
 * - every storage slot an SLOAD or SSTORE reached in a frame that did not revert stays, as a leaf
 *   holding rlp(0) = 0x80 when it holds zero, where the storage trie has no key for a zero.
 * Measured against anvil's proofs and state roots (`test/follow/devNodes.test.ts`). Nothing the EVM
 * computes changes: an empty account reads as an absent one (BALANCE, EXTCODEHASH, the new-account
 * gas) and a zero leaf as no leaf; only the state root, and proofs, differ.
 */

/**
 * Makes `vm` keep the state anvil keeps: installed once, before the VM runs, on a VM whose state
 * manager is a MerkleStateManager with caches (the importer's, a replay's). Slots are kept by the
 * storage cache (`keepLoadedSlots`). Accounts: `getAccount` and `getCode` (through which every
 * account read of @ethereumjs/vm and @ethereumjs/evm goes) record, from each transaction's
 * `beforeTx` event to its end, the accounts asked for, whatever frames revert; at the end of the
 * transaction those, and the ones it touched, that do not exist (a self-destructed or failed
 * creation among them) are written as empty accounts, and no touched empty account is deleted.
 * Throws when a hooked method or field of @ethereumjs is not the pinned release's.
 */
export function keepLoadedState(vm: VM): void {
  const sm = vm.stateManager;
  keepLoadedSlots(sm);
  let loaded: Map<string, Address> | undefined;
  const getAccount = sm.getAccount.bind(sm);
  const getCode = sm.getCode.bind(sm);
  sm.getAccount = (address: Address) => {
    loaded?.set(bytesToUnprefixedHex(address.bytes), address);
    return getAccount(address);
  };
  sm.getCode = (address: Address) => {
    loaded?.set(bytesToUnprefixedHex(address.bytes), address);
    return getCode(address);
  };
  // runTx emits beforeTx before its first state read; block-level reads (the system writes, the
  // withdrawals) fall outside a transaction and are not recorded: anvil keeps none of them.
  vm.events.on('beforeTx', () => {
    loaded = new Map();
  });
  keepTouchedAccounts(vm.evm as Parameters<typeof keepTouchedAccounts>[0], async (touched) => {
    const accounts = loaded;
    loaded = undefined;
    if (accounts === undefined) return;
    for (const hex of touched) if (!accounts.has(hex)) accounts.set(hex, new Address(unprefixedHexToBytes(hex)));
    for (const address of accounts.values()) if ((await getAccount(address)) === undefined) await sm.putAccount(address, new Account());
  });
}
