import { defineMethod } from '../../rpc/method.js';
import { resolveBlockRef } from '../../starknet/blockRef.js';
import { STARKNET_READ } from '../raises.js';
import { blockAnswer, requireTransactions, transactionWithHash } from './_shared/blockBody.js';
import { BlockId } from './_shared/schemas.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_getBlockWithTxs(block_id)`: BLOCK_WITH_TXS, the block's status and header with its
 * transactions (TXN_WITH_HASH, as the block's source gave them); PENDING_BLOCK_WITH_TXS for
 * `pending`/`pre_confirmed`. Errors: 24 BLOCK_NOT_FOUND.
 */
export const getBlockWithTxs = defineMethod({
  name: 'starknet_getBlockWithTxs',
  raises: STARKNET_READ,
  params: [BlockId],
  names: ['block_id'],
  handler: async (ctx: StarknetContext, [blockId]) =>
    blockAnswer(ctx.store, await resolveBlockRef(ctx.store, blockId), async (block) =>
      requireTransactions(block, await ctx.store.transactions(block.number)).map(transactionWithHash),
    ),
});
