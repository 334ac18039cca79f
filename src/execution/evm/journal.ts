import type { StateManagerInterface } from '@ethereumjs/common';
import type { EVM } from '@ethereumjs/evm';
import { checkFingerprint, unsupported } from './upstream.js';

/*
 * The EVM's journal: anvil's accounts kept (`execution/loadedState.ts`), a reused EVM pointed at
 * a new state, addresses warmed without the journal's per-string check.
 */

/**
 * Replaces EIP-161's clearing in `evm`'s journal: its `cleanup` (at the end of each transaction,
 * after the system writes and the withdrawals) first awaits `atCleanup` with the accounts touched
 * since the last one (unprefixed hex), then deletes none of them. Throws when the journal has no
 * `touched` set or its `cleanup` is not the pinned release's.
 */
export function keepTouchedAccounts(evm: EVM, atCleanup: (touched: ReadonlySet<string>) => Promise<void>): void {
  const journal = evm.journal as unknown as { touched?: unknown; cleanup?: unknown };
  if (!(journal.touched instanceof Set)) throw unsupported('@ethereumjs/evm', 'Journal.touched', 'the accounts a transaction touched');
  checkFingerprint('Journal.cleanup', journal.cleanup);
  const cleanup = journal.cleanup as () => Promise<void>;
  journal.cleanup = async () => {
    // A new set each time the journal is cleaned (cleanJournal): read at each cleanup.
    const touched = journal.touched as Set<string>;
    await atCleanup(touched);
    touched.clear();
    return cleanup.call(journal);
  };
}

/**
 * Points a reused EVM at a new state for its next run: the EVM's `stateManager` (public) and its
 * journal's private `stateManager`, which the journal reads and writes through and which
 * @ethereumjs/evm sets only in its constructor; then clears the journal and transient storage left
 * by the previous run.
 */
export function pointEvmAt(evm: EVM, stateManager: StateManagerInterface): void {
  const journal = evm.journal as unknown as { stateManager?: StateManagerInterface };
  if (journal.stateManager === undefined) throw unsupported('@ethereumjs/evm', 'Journal.stateManager', 'the state the journal writes to');
  evm.stateManager = stateManager;
  journal.stateManager = stateManager;
  evm.journal.cleanJournal();
  evm.transientStorage.clear();
}

/**
 * Warms `addresses` (unprefixed lowercase hex) for the run, as `journal.addAlwaysWarmAddress` does,
 * straight into the journal's private `alwaysWarmJournal` map: the method checks each string with a
 * regular expression first, which for a fork's precompiles on every call cost more than the rest.
 */
export function warmAddresses(evm: EVM, addresses: readonly string[]): void {
  const warm = (evm.journal as unknown as { alwaysWarmJournal?: unknown }).alwaysWarmJournal;
  if (!(warm instanceof Map)) throw unsupported('@ethereumjs/evm', 'Journal.alwaysWarmJournal', 'the addresses warm for the whole run');
  for (const address of addresses) if (!warm.has(address)) warm.set(address, new Set());
}
