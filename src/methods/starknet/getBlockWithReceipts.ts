import { defineMethod } from '../../rpc/method.js';
import { resolveBlockRef } from '../../starknet/blockRef.js';
import { STARKNET_READ } from '../raises.js';
import { blockAnswer, requireTransactions, transactionAndReceipt } from './_shared/blockBody.js';
import { BlockId } from './_shared/schemas.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_getBlockWithReceipts(block_id)`: BLOCK_WITH_RECEIPTS, the block's status and header
 * with each transaction and its receipt as the block's source gave them (the receipts'
 * `finality_status` the block's); PENDING_BLOCK_WITH_RECEIPTS for `pending`/`pre_confirmed`.
 * Errors: 24 BLOCK_NOT_FOUND.
 */
export const getBlockWithReceipts = defineMethod({
  name: 'starknet_getBlockWithReceipts',
  raises: STARKNET_READ,
  params: [BlockId],
  names: ['block_id'],
  handler: async (ctx: StarknetContext, [blockId]) =>
    blockAnswer(ctx.store, await resolveBlockRef(ctx.store, blockId), async (block, finality) =>
      requireTransactions(block, await ctx.store.transactions(block.number)).map((tx) => transactionAndReceipt(tx, finality)),
    ),
});
