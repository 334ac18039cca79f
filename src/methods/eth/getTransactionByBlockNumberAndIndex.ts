import { BlockNumberOrTag } from '../../codec/blockId.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { receiptsForDeposits } from './_shared/deposits.js';
import { findBlock } from './_shared/findBlock.js';
import { formatBlockTransaction } from './_shared/formatTransaction.js';
import { Index } from './_shared/params.js';

/** `eth_getTransactionByBlockNumberAndIndex(block, index)`: `null` beyond the head or past the last transaction. */
export const getTransactionByBlockNumberAndIndex = defineMethod({
  name: 'eth_getTransactionByBlockNumberAndIndex',
  raises: HISTORY,
  params: [BlockNumberOrTag, Index],
  handler: async (ctx: EthContext, [id, index], req) => {
    const block = await findBlock(ctx, id, req);
    return block ? formatBlockTransaction(block, index, await receiptsForDeposits(ctx.chain.store, block, index)) : null;
  },
});
