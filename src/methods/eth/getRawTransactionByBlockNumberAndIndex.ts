import { BlockNumberOrTag } from '../../codec/blockId.js';
import { bytesToData } from '../../codec/hex.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { findBlock } from './_shared/findBlock.js';
import { Index } from './_shared/params.js';

/**
 * `eth_getRawTransactionByBlockNumberAndIndex(block, index)`: the signed encoding of a block's
 * transaction, as geth; `null` beyond the head or past the last transaction.
 */
export const getRawTransactionByBlockNumberAndIndex = defineMethod({
  name: 'eth_getRawTransactionByBlockNumberAndIndex',
  raises: HISTORY,
  params: [BlockNumberOrTag, Index],
  handler: async (ctx: EthContext, [id, index], req) => {
    const tx = (await findBlock(ctx, id, req))?.transactions[index];
    return tx ? bytesToData(tx.serialize()) : null;
  },
});
