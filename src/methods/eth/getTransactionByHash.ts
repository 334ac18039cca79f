import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { formatBlockTransaction } from './_shared/formatTransaction.js';

/**
 * `eth_getTransactionByHash(hash)`: a mined transaction with its block position; `null` for an
 * unknown hash (there is no transaction pool: the node is read-only).
 */
export const getTransactionByHash = defineMethod({
  name: 'eth_getTransactionByHash',
  params: [Hash],
  handler: async (ctx: EthContext, [hash]) => {
    const at = await ctx.chain.store.txLocation(hash);
    if (!at) return null;
    const block = await ctx.chain.store.blockByHash(at.blockHash);
    return block ? formatBlockTransaction(block, at.index) : null;
  },
});
