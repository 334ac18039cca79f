import type { PrecompileFunc } from '@ethereumjs/evm';
import { Account, Address, bytesToUnprefixedHex } from '@ethereumjs/util';
import type { StateReadCache } from '../state/readCache.js';
import type { AccountOverride } from './callArgs.js';
import { CallError, checksum } from './callResult.js';
import type { Fork } from './forks.js';
import { OverlayState } from './overlayDb.js';

/**
 * State overrides of a call, as geth's `StateOverride.Apply` (ethereum/go-ethereum
 * `internal/ethapi/override/override.go`): the checks and precompile moves, done once per request
 * before any run, and the account edits, applied to each run's fresh overlay.
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
export function precompileEdits(fork: Fork, state: AccountOverride[]): PrecompileEdit[] {
  const edits: PrecompileEdit[] = [];
  if (state.length === 0) return edits;
  const active = new Map(fork.precompiles);
  const overridden = new Set(state.map((a) => bytesToUnprefixedHex(a.address)));
  const moved = new Set<string>();
  for (const account of state) {
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
 * A fresh overlay on the state `stateRoot` with the account overrides applied (already checked by
 * {@link precompileEdits}, which every request passes first).
 */
export async function overriddenState(reads: StateReadCache, stateRoot: Uint8Array, overrides: AccountOverride[]): Promise<OverlayState> {
  const sm = new OverlayState(reads, stateRoot);
  for (const o of overrides) {
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
  return sm;
}
