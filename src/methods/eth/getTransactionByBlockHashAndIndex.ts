import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { receiptsForDeposits } from './_shared/deposits.js';
import { formatBlockTransaction } from './_shared/formatTransaction.js';
import { Index } from './_shared/params.js';

/** `eth_getTransactionByBlockHashAndIndex(hash, index)`: `null` for an unknown block or past the last transaction. */
export const getTransactionByBlockHashAndIndex = defineMethod({
  name: 'eth_getTransactionByBlockHashAndIndex',
  raises: HISTORY,
  params: [Hash, Index],
  handler: async (ctx: EthContext, [hash, index]) => {
    const block = await ctx.chain.store.blockByHash(hash);
    return block ? formatBlockTransaction(block, index, await receiptsForDeposits(ctx.chain.store, block, index)) : null;
  },
});
