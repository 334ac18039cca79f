import { BlockNumberOrTag } from '../../codec/blockId.js';
import { bigIntToQuantity } from '../../codec/hex.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { findBlock } from './_shared/findBlock.js';

/** `eth_getBlockTransactionCountByNumber(block)`: how many transactions the block has; `null` beyond the head. */
export const getBlockTransactionCountByNumber = defineMethod({
  name: 'eth_getBlockTransactionCountByNumber',
  raises: HISTORY,
  params: [BlockNumberOrTag],
  handler: async (ctx: EthContext, [id], req) => {
    const block = await findBlock(ctx, id, req);
    return block ? bigIntToQuantity(block.transactions.length) : null;
  },
});
