import { defineMethod } from '../../rpc/method.js';
import { NoBlocksError } from '../../starknet/errors.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_blockNumber`: the number of the latest imported block, as a JSON integer.
 * Spec: starkware-libs/starknet-specs `api/starknet_api_openrpc.json`; no blocks → 32 NO_BLOCKS.
 */
export const blockNumber = defineMethod({
  name: 'starknet_blockNumber',
  params: [],
  handler: async (ctx: StarknetContext): Promise<number> => {
    const latest = await ctx.store.latestNumber();
    if (latest === undefined) throw new NoBlocksError();
    return latest;
  },
});
