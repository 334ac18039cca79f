import { defineMethod } from '../../rpc/method.js';
import { describeBlockRef, resolveBlockRef } from '../../starknet/blockRef.js';
import { InvalidTransactionIndexError } from '../../starknet/errors.js';
import { STARKNET_READ } from '../raises.js';
import { requireTransactions, transactionWithHash } from './_shared/blockBody.js';
import { BlockId, TxIndex } from './_shared/schemas.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_getTransactionByBlockIdAndIndex(block_id, index)`: TXN_WITH_HASH, the block's
 * transaction at `index`. Errors: 24 BLOCK_NOT_FOUND, 27 INVALID_TXN_INDEX (an index past the
 * block's transactions; any index of the empty pending block).
 */
export const getTransactionByBlockIdAndIndex = defineMethod({
  name: 'starknet_getTransactionByBlockIdAndIndex',
  raises: STARKNET_READ,
  params: [BlockId, TxIndex],
  names: ['block_id', 'index'],
  handler: async (ctx: StarknetContext, [blockId, index]) => {
    const resolved = await resolveBlockRef(ctx.store, blockId);
    const tx = resolved.pending ? undefined : await ctx.store.transaction(resolved.block.number, index);
    if (tx === undefined && !resolved.pending && index < resolved.block.transactionCount) requireTransactions(resolved.block, []);
    if (tx === undefined) throw new InvalidTransactionIndexError(describeBlockRef(blockId), index);
    return transactionWithHash(tx);
  },
});
