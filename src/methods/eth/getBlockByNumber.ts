import { BlockNumberOrTag } from '../../codec/blockId.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { receiptsForDeposits } from './_shared/deposits.js';
import { findBlock } from './_shared/findBlock.js';
import { formatBlock } from './_shared/formatBlock.js';
import { Bool } from './_shared/params.js';

/**
 * `eth_getBlockByNumber(block, fullTx)`: the canonical block at a number or tag, with transaction
 * hashes or full transactions; `null` beyond the head.
 * https://ethereum.github.io/execution-apis/api-documentation/ (eth_getBlockByNumber)
 */
export const getBlockByNumber = defineMethod({
  name: 'eth_getBlockByNumber',
  raises: HISTORY,
  params: [BlockNumberOrTag, Bool],
  handler: async (ctx: EthContext, [id, fullTx], req) => {
    const block = await findBlock(ctx, id, req);
    if (!block) return null;
    return formatBlock(block, fullTx, ctx.renderedBlocks, fullTx ? await receiptsForDeposits(ctx.chain.store, block) : undefined);
  },
});
