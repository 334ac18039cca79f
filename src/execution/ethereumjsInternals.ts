import type { Common, StateManagerInterface } from '@ethereumjs/common';
import type { EVM } from '@ethereumjs/evm';

/**
 * Every use of @ethereumjs private fields, in one place. They are not part of the packages' API
 * and a release may rename them without notice (the versions pinned in package.json were read);
 * each accessor checks what it finds and throws an Error naming the field rather than carrying on
 * with a silently wrong EVM (every EIP off, an unhooked opcode, a run on the previous state).
 */

/** Thrown when a private field this file relies on is missing or has changed shape. */
function unsupported(pkg: string, field: string, use: string): Error {
  return new Error(`unsupported ${pkg}: ${field} (${use}) is missing or has changed; see src/execution/ethereumjsInternals.ts`);
}

/**
 * The interpreter asks `isActivatedEIP` several times per opcode, and @ethereumjs/common answers
 * with a linear search of its private `_activatedEIPsCache` array (a quarter of the time of a
 * compute-heavy call). For a Common that stays on one hardfork, answer from a Set of that array
 * instead, rebuilt on `hardforkChanged`. Throws if the array is missing, so that a renamed field
 * cannot turn every EIP off.
 */
export function fastEipLookup(common: Common): void {
  const original = common.isActivatedEIP.bind(common);
  const read = (): Set<number> => {
    const cache = (common as unknown as { _activatedEIPsCache?: unknown })._activatedEIPsCache;
    if (!Array.isArray(cache)) throw unsupported('@ethereumjs/common', 'Common._activatedEIPsCache', 'the EIPs isActivatedEIP searches');
    const active = new Set<number>(cache);
    // EIP-1 (chainstart) is active on every fork: a stale array left behind a rename shows here.
    if (active.has(1) !== original(1)) throw unsupported('@ethereumjs/common', 'Common._activatedEIPsCache', 'the EIPs isActivatedEIP searches');
    return active;
  };
  let active = read();
  common.events.on('hardforkChanged', () => {
    active = read();
  });
  common.isActivatedEIP = (eip: number) => active.has(eip);
}

/** The parts of an entry of @ethereumjs/evm's opcode table that opcode hooks touch. */
export interface OpcodeEntry {
  opcodeInfo: { code: number; name: string; isAsync: boolean };
  opHandler: (runState: never, common: unknown) => unknown;
}

/**
 * The EVM's opcode table (`_opcodeMap`, indexed by opcode), whose handlers `opcodeHooks.ts` wraps.
 * It is rebuilt when the EVM changes hardfork, so it is read again before each run.
 */
export function opcodeTable(evm: EVM): OpcodeEntry[] {
  const table = (evm as unknown as { _opcodeMap?: unknown })._opcodeMap;
  if (!Array.isArray(table)) throw unsupported('@ethereumjs/evm', 'EVM._opcodeMap', 'the opcode table to hook');
  return table as OpcodeEntry[];
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
