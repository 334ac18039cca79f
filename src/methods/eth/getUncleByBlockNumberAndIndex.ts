import { BlockNumberOrTag } from '../../codec/blockId.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { findBlock } from './_shared/findBlock.js';
import { formatUncle } from './_shared/formatBlock.js';
import { Index } from './_shared/params.js';

/**
 * `eth_getUncleByBlockNumberAndIndex(block, index)`: uncle `index` of the block, rendered as geth
 * renders an uncle (docs/methods.md#uncles); `null` for a block beyond the head or an index out
 * of range.
 */
export const getUncleByBlockNumberAndIndex = defineMethod({
  name: 'eth_getUncleByBlockNumberAndIndex',
  raises: HISTORY,
  params: [BlockNumberOrTag, Index],
  handler: async (ctx: EthContext, [id, index], req) => {
    const uncle = (await findBlock(ctx, id, req))?.uncleHeaders[index];
    return uncle ? formatUncle(uncle) : null;
  },
});
