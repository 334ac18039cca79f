import { defineMethod } from '../../rpc/method.js';
import { resolveBlockRef } from '../../starknet/blockRef.js';
import { NotHeldError } from '../../starknet/errors.js';
import { STARKNET_READ } from '../raises.js';
import { BlockId } from './_shared/schemas.js';
import type { StarknetContext } from './context.js';

/** An empty STATE_DIFF, in the spec's field order. */
const EMPTY_DIFF = { storage_diffs: [], deprecated_declared_classes: [], declared_classes: [], deployed_contracts: [], replaced_classes: [], nonces: [] };

/**
 * `starknet_getStateUpdate(block_id)`: STATE_UPDATE, the block's state update as its source gave
 * it (the followed upstream's `starknet_getStateUpdate`, fetched with the block, or the
 * `import-starknet --state-updates` file); for `pending`/`pre_confirmed`, PENDING_STATE_UPDATE of
 * the empty pending block: `old_root` the latest `new_root`, an empty diff. Errors: 24
 * BLOCK_NOT_FOUND; a stored block whose state update was not given (imported without one) is
 * -32000 saying so.
 */
export const getStateUpdate = defineMethod({
  name: 'starknet_getStateUpdate',
  raises: STARKNET_READ,
  params: [BlockId],
  names: ['block_id'],
  handler: async (ctx: StarknetContext, [blockId]) => {
    const resolved = await resolveBlockRef(ctx.store, blockId);
    if (resolved.pending) return { old_root: resolved.parent.fields?.newRoot ?? '0x0', state_diff: EMPTY_DIFF };
    const update = await ctx.store.stateUpdate(resolved.block.number);
    if (update === undefined)
      throw new NotHeldError(`the state update of block ${resolved.block.number} is not held: it was imported without one (import-starknet --state-updates)`);
    return update;
  },
});
