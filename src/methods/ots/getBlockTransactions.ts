import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { findBlock } from '../eth/_shared/findBlock.js';
import { HISTORY } from '../raises.js';
import { blockTransactions, type OtsBlockTransactions } from './_shared/blocks.js';
import { OtsBlockNumber, Uint8Param } from './_shared/params.js';

/**
 * `ots_getBlockTransactions(number, pageNumber, pageSize)`: one page of a block's transactions
 * (inputs cut to their selector) with their receipts (no logs), pages counted from the block's
 * end (erigon `GetBlockTransactions`); `null` beyond the head. Page number and size are 0–255.
 */
export const otsGetBlockTransactions = defineMethod({
  name: 'ots_getBlockTransactions',
  raises: HISTORY,
  params: [OtsBlockNumber, Uint8Param, Uint8Param],
  handler: async (ctx: EthContext, [id, pageNumber, pageSize], req): Promise<OtsBlockTransactions | null> => {
    const block = await findBlock(ctx, id, req);
    return block ? blockTransactions(ctx, block, pageNumber, pageSize) : null;
  },
});
