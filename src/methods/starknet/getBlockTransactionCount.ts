import { defineMethod } from '../../rpc/method.js';
import { resolveBlockRef } from '../../starknet/blockRef.js';
import { STARKNET_READ } from '../raises.js';
import { BlockId } from './_shared/schemas.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_getBlockTransactionCount(block_id)`: the number of transactions in the block (0 for
 * the empty pending block). Errors: 24 BLOCK_NOT_FOUND.
 */
export const getBlockTransactionCount = defineMethod({
  name: 'starknet_getBlockTransactionCount',
  raises: STARKNET_READ,
  params: [BlockId],
  names: ['block_id'],
  handler: async (ctx: StarknetContext, [blockId]): Promise<number> => {
    const resolved = await resolveBlockRef(ctx.store, blockId);
    return resolved.pending ? 0 : resolved.block.transactionCount;
  },
});
