import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { formatUncle } from './_shared/formatBlock.js';
import { Index } from './_shared/params.js';

/**
 * `eth_getUncleByBlockHashAndIndex(hash, index)`: uncle `index` of the block, rendered as geth
 * renders an uncle (docs/methods.md#uncles); `null` for an unknown block or an index out of range.
 */
export const getUncleByBlockHashAndIndex = defineMethod({
  name: 'eth_getUncleByBlockHashAndIndex',
  raises: HISTORY,
  params: [Hash, Index],
  handler: async (ctx: EthContext, [hash, index]) => {
    const uncle = (await ctx.chain.store.blockByHash(hash))?.uncleHeaders[index];
    return uncle ? formatUncle(uncle) : null;
  },
});
