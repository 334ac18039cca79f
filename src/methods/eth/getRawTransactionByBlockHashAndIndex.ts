import { bytesToData } from '../../codec/hex.js';
import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { Index } from './_shared/params.js';

/**
 * `eth_getRawTransactionByBlockHashAndIndex(hash, index)`: the signed encoding of a block's
 * transaction, as geth; `null` for an unknown block or past the last transaction.
 */
export const getRawTransactionByBlockHashAndIndex = defineMethod({
  name: 'eth_getRawTransactionByBlockHashAndIndex',
  raises: HISTORY,
  params: [Hash, Index],
  handler: async (ctx: EthContext, [hash, index]) => {
    const tx = (await ctx.chain.store.blockByHash(hash))?.transactions[index];
    return tx ? bytesToData(tx.serialize()) : null;
  },
});
