import { defineMethod } from '../../rpc/method.js';
import { resolveBlockRef } from '../../starknet/blockRef.js';
import { STARKNET_READ } from '../raises.js';
import { blockAnswer, requireTransactions } from './_shared/blockBody.js';
import { BlockId } from './_shared/schemas.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_getBlockWithTxHashes(block_id)`: BLOCK_WITH_TX_HASHES, the block's status and header
 * with its transaction hashes; for `pending`/`pre_confirmed`, PENDING_BLOCK_WITH_TX_HASHES (no
 * transactions: this node builds no block). Errors: 24 BLOCK_NOT_FOUND.
 */
export const getBlockWithTxHashes = defineMethod({
  name: 'starknet_getBlockWithTxHashes',
  raises: STARKNET_READ,
  params: [BlockId],
  names: ['block_id'],
  handler: async (ctx: StarknetContext, [blockId]) =>
    blockAnswer(ctx.store, await resolveBlockRef(ctx.store, blockId), async (block) =>
      requireTransactions(block, await ctx.store.transactionHashes(block.number)),
    ),
});
