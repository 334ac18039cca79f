import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { receiptsForDeposits } from './_shared/deposits.js';
import { formatBlock } from './_shared/formatBlock.js';
import { Bool } from './_shared/params.js';

/**
 * `eth_getBlockByHash(hash, fullTx)`: the block with this hash, with transaction hashes or full
 * transactions; `null` for an unknown hash.
 * https://ethereum.github.io/execution-apis/api-documentation/ (eth_getBlockByHash)
 */
export const getBlockByHash = defineMethod({
  name: 'eth_getBlockByHash',
  raises: HISTORY,
  params: [Hash, Bool],
  handler: async (ctx: EthContext, [hash, fullTx]) => {
    const block = await ctx.chain.store.blockByHash(hash);
    if (!block) return null;
    return formatBlock(block, fullTx, ctx.renderedBlocks, fullTx ? await receiptsForDeposits(ctx.chain.store, block) : undefined);
  },
});
