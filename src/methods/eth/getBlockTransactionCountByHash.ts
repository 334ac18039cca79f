import { bigIntToQuantity } from '../../codec/hex.js';
import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';

/** `eth_getBlockTransactionCountByHash(hash)`: how many transactions the block has; `null` for an unknown hash. */
export const getBlockTransactionCountByHash = defineMethod({
  name: 'eth_getBlockTransactionCountByHash',
  raises: HISTORY,
  params: [Hash],
  handler: async (ctx: EthContext, [hash]) => {
    const block = await ctx.chain.store.blockByHash(hash);
    return block ? bigIntToQuantity(block.transactions.length) : null;
  },
});
