import { bigIntToQuantity } from '../../codec/hex.js';
import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';

/** `eth_getUncleCountByBlockHash(hash)`: how many uncles the block includes; `null` for an unknown hash. */
export const getUncleCountByBlockHash = defineMethod({
  name: 'eth_getUncleCountByBlockHash',
  raises: HISTORY,
  params: [Hash],
  handler: async (ctx: EthContext, [hash]) => {
    const block = await ctx.chain.store.blockByHash(hash);
    return block ? bigIntToQuantity(block.uncleHeaders.length) : null;
  },
});
