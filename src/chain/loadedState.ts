import type { BatchOp, Level } from '../db/database.js';
import { META } from '../db/keys.js';

/**
 * anvil (1.7.1) writes back into its state every account and storage slot a transaction's
 * execution loaded, read or written, empty or zero: a call's target, an address BALANCE or
 * EXTCODEHASH looked up, a self-destructed or failed creation stay as empty accounts (where
 * EIP-161 removes them), and a slot an SLOAD read or an SSTORE cleared stays as a leaf holding
 * zero (where the storage trie has no key). Its state roots are those of that state. The importer
 * finds this out on the first such block under lenient header checks (`import/blockImporter.ts`)
 * and records it here, in the block's own batch, so that later blocks, later runs and trace
 * replays execute the chain the same way (`execution/evm/storage.ts` and `journal.ts`: keepLoadedSlots, keepTouchedAccounts).
 */

/** Whether this datadir's blocks are executed keeping the state their transactions loaded. */
export async function loadedStateKept(level: Level): Promise<boolean> {
  return (await level.get(META.loadedStateKept)) !== undefined;
}

/** The write that records {@link loadedStateKept}. */
export function keepLoadedStateOp(): BatchOp {
  return { type: 'put', key: META.loadedStateKept, value: Uint8Array.of(1) };
}
