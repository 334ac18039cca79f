import type { Block } from '@ethereumjs/block';
import type { VM } from '@ethereumjs/vm';
import { type OpRollup, type OpUpgrade, opCommon, upgradeAt } from '../../chain/op/rollup.js';
import { createBlockVM } from '../blockRun.js';
import { opPrecompiles } from './precompiles.js';

/** The upgrade a block runs by: a VM is built for one, and a block of another needs another VM. */
export function opUpgradeOf(op: OpRollup, block: Block): OpUpgrade {
  return upgradeAt(op, block.header.timestamp);
}

/**
 * A VM for `block`'s upgrade of `op`'s chain, over `stateManager`, reading BLOCKHASH from
 * `blockchain`: the Ethereum fork's Common the upgrade runs under the chain's id, and the
 * upgrade's precompiles (`precompiles.ts`); `fastPaths` as `createBlockVM`'s. Blocks run on it with
 * `executeOpBlock`.
 */
export async function createOpVM(op: OpRollup, block: Block, stateManager: VM['stateManager'], blockchain: VM['blockchain'], fastPaths = false): Promise<VM> {
  const common = opCommon(op, opUpgradeOf(op, block));
  return createBlockVM(
    {
      common,
      stateManager,
      blockchain,
      evmOpts: { customPrecompiles: opPrecompiles(op, block.header.timestamp, common) },
    },
    fastPaths,
  );
}
