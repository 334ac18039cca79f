import type { StateManagerInterface } from '@ethereumjs/common';
import type { PrecompileFunc } from '@ethereumjs/evm';
import { Account, Address, bytesToUnprefixedHex, compareBytes } from '@ethereumjs/util';
import type { StateReadCache } from '../state/readCache.js';
import type { AccountOverride } from './callArgs.js';
import { CallError, checksum } from './callResult.js';
import type { Fork } from './forks.js';
import { OverlayState } from './overlayDb.js';

/**
 * State overrides, as geth's `StateOverride.Apply` (ethereum/go-ethereum
 * `internal/ethapi/override/override.go`), for every method that takes them (eth_call,
 * eth_estimateGas, eth_createAccessList, eth_simulateV1's blocks, the tracing calls): the checks
 * and precompile moves, done once per request (per block in eth_simulateV1) before any run, and
 * the account edits, applied to each run's fresh overlay or to the simulated chain's state.
 */

/** A change to the precompile map: `address` gets `fn`, or stops being a precompile without it. */
export interface PrecompileEdit {
  address: string;
  fn?: PrecompileFunc;
}

/**
 * Checks a request's state overrides and returns the precompile map edits they imply, in geth's
 * order: an overridden precompile address stops being a precompile; `movePrecompileToAddress`
 * re-installs it elsewhere. Throws {@link CallError} with geth's texts.
 */
export function precompileEdits(fork: Fork, state: readonly AccountOverride[]): PrecompileEdit[] {
  const edits: PrecompileEdit[] = [];
  if (state.length === 0) return edits;
  const active = new Map(fork.precompiles);
  const overridden = new Set(state.map((a) => bytesToUnprefixedHex(a.address)));
  const moved = new Set<string>();
  // geth walks the accounts in address order (slices.SortedFunc(maps.Keys(*diff), common.Address.Cmp)):
  // it decides which error is met first, and which precompile a destination moved to twice keeps
  const ordered = [...state].sort((a, b) => compareBytes(a.address, b.address));
  for (const account of ordered) {
    const addr = bytesToUnprefixedHex(account.address);
    if (moved.has(addr)) throw new CallError(`account ${checksum(account.address)} has already been overridden by a precompile`);
    const fn = active.get(addr);
    if (account.movePrecompileToAddress !== undefined) {
      if (fn === undefined) throw new CallError(`account ${checksum(account.address)} is not a precompile`);
      const dest = bytesToUnprefixedHex(account.movePrecompileToAddress);
      if (overridden.has(dest)) throw new CallError(`account ${checksum(account.movePrecompileToAddress)} is already overridden`);
      active.set(dest, fn);
      moved.add(dest);
      edits.push({ address: dest, fn });
    }
    if (fn !== undefined) {
      active.delete(addr);
      edits.push({ address: addr });
    }
    if (account.state !== undefined && account.stateDiff !== undefined) {
      throw new CallError(`account ${checksum(account.address)} has both 'state' and 'stateDiff'`);
    }
  }
  return edits;
}

/**
 * Applies the account edits of `overrides` to `sm`, as geth's `StateOverride.Apply` makes them
 * (already checked by {@link precompileEdits}, which every request passes first): `nonce`,
 * `balance` and `code` replace the account's; `state` replaces all its storage, `stateDiff` the
 * slots it names.
 *
 * An account comes into existence exactly when geth's `StateDB` creates it: each of `SetNonce`,
 * `SetCode`, `SetBalance`, `SetStorage` (for `state`, even empty) and `SetState` (once per
 * `stateDiff` slot) creates an absent account (`getOrNewStateObject`, `createObject`), and the
 * `Finalise(params.Rules{})` after them keeps it although empty (no EIP-158 rules). An entry that
 * sets none of them (a precompile move alone, `{}`, an empty `stateDiff`) leaves its address
 * absent when it was.
 */
export async function applyStateOverrides(sm: StateManagerInterface, overrides: readonly AccountOverride[]): Promise<void> {
  for (const o of overrides) {
    if (!createsAccount(o)) continue;
    const address = new Address(o.address);
    const account = (await sm.getAccount(address)) ?? new Account();
    if (o.nonce !== undefined) account.nonce = o.nonce;
    if (o.balance !== undefined) account.balance = o.balance;
    await sm.putAccount(address, account);
    if (o.code !== undefined) await sm.putCode(address, o.code);
    if (o.state !== undefined) {
      await sm.clearStorage(address);
      for (const [slot, value] of o.state) await sm.putStorage(address, slot, value);
    }
    if (o.stateDiff !== undefined) {
      for (const [slot, value] of o.stateDiff) await sm.putStorage(address, slot, value);
    }
  }
}

/** Whether geth's `Apply` touches the account of `o` at all (see {@link applyStateOverrides}). */
function createsAccount(o: AccountOverride): boolean {
  return o.nonce !== undefined || o.balance !== undefined || o.code !== undefined || o.state !== undefined || (o.stateDiff?.length ?? 0) > 0;
}

/** A fresh overlay on the state `stateRoot` with the account overrides applied ({@link applyStateOverrides}). */
export async function overriddenState(reads: StateReadCache, stateRoot: Uint8Array, overrides: readonly AccountOverride[]): Promise<OverlayState> {
  const sm = new OverlayState(reads, stateRoot);
  await applyStateOverrides(sm, overrides);
  return sm;
}
