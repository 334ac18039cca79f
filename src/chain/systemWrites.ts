import type { BatchOp, Level } from '../db/database.js';
import { META } from '../db/keys.js';

/**
 * Hardhat (2.29, EDR) makes its Cancun-and-later blocks without the EIP-4788 beacon-root and
 * EIP-2935 block-hash system writes, although its chain has code at both addresses: its state
 * roots are those of blocks executed without them. The importer finds this out on the first such
 * block under lenient header checks (`import/blockImporter.ts`) and records it here, in the block's
 * own batch, so that later blocks, later runs and trace replays execute the chain the same way.
 */

/** Whether this datadir's blocks are executed without the EIP-4788 and EIP-2935 system writes. */
export async function systemWritesSkipped(level: Level): Promise<boolean> {
  return (await level.get(META.systemWritesSkipped)) !== undefined;
}

/** The write that records {@link systemWritesSkipped}. */
export function skipSystemWritesOp(): BatchOp {
  return { type: 'put', key: META.systemWritesSkipped, value: Uint8Array.of(1) };
}
