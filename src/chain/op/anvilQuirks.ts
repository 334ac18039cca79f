import type { BatchOp, Level } from '../../db/database.js';
import { META } from '../../db/keys.js';

/**
 * Whether an OP-stack chain's blocks run as anvil's OP mode makes them (a deposit receipt's nonce
 * the one after it, the fee vaults and L1Block kept when touched empty, op-revm's L1Block reads):
 * found by the importer at the first block that verifies only so, and recorded with that block, so
 * that replays (traces) and later runs execute the chain the same way.
 */
export async function opAnvilQuirksKept(level: Level): Promise<boolean> {
  return (await level.get(META.opAnvilQuirks)) !== undefined;
}

/** The write that records it (in the batch of the block that found it, with the newest schema). */
export function keepOpAnvilQuirksOp(): BatchOp {
  return { type: 'put', key: META.opAnvilQuirks, value: Uint8Array.of(1) };
}
