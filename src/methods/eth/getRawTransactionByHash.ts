import { bytesToData } from '../../codec/hex.js';
import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';

/**
 * `eth_getRawTransactionByHash(hash)`: a mined transaction's signed encoding (EIP-2718 for typed
 * ones), as geth's `GetRawTransactionByHash`; `null` for an unknown hash (there is no pool).
 */
export const getRawTransactionByHash = defineMethod({
  name: 'eth_getRawTransactionByHash',
  params: [Hash],
  handler: async (ctx: EthContext, [hash]) => {
    const at = await ctx.chain.store.txLocation(hash);
    if (!at) return null;
    const block = await ctx.chain.store.blockByHash(at.blockHash);
    return block ? bytesToData(block.transactions[at.index].serialize()) : null;
  },
});
