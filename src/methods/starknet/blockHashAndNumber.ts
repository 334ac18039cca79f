import { defineMethod } from '../../rpc/method.js';
import { STARKNET_READ } from '../raises.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_blockHashAndNumber`: the latest stored block's hash and number; no blocks → 32
 * NO_BLOCKS (the store's `NoBlocksError`).
 */
export const blockHashAndNumber = defineMethod({
  name: 'starknet_blockHashAndNumber',
  raises: STARKNET_READ,
  params: [],
  handler: async (ctx: StarknetContext): Promise<{ block_hash: string; block_number: number }> => {
    const number = await ctx.store.requireLatestNumber();
    const block = await ctx.store.block(number);
    return { block_hash: block!.hash, block_number: number };
  },
});
