import { BlockNumberOrTag } from '../../codec/blockId.js';
import { bigIntToQuantity } from '../../codec/hex.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { findBlock } from './_shared/findBlock.js';

/** `eth_getUncleCountByBlockNumber(block)`: how many uncles the block includes; `null` beyond the head. */
export const getUncleCountByBlockNumber = defineMethod({
  name: 'eth_getUncleCountByBlockNumber',
  raises: HISTORY,
  params: [BlockNumberOrTag],
  handler: async (ctx: EthContext, [id], req) => {
    const block = await findBlock(ctx, id, req);
    return block ? bigIntToQuantity(block.uncleHeaders.length) : null;
  },
});
