import { BlockNumberOrHash } from '../../codec/blockId.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { findBlock } from './_shared/findBlock.js';
import { formatBlockReceipts } from './_shared/formatReceipt.js';

/**
 * `eth_getBlockReceipts(block)`: every receipt of a block named by number, tag, hash or EIP-1898
 * object; `null` for a block beyond the head or an unknown hash (geth `GetBlockReceipts`).
 */
export const getBlockReceipts = defineMethod({
  name: 'eth_getBlockReceipts',
  raises: HISTORY,
  params: [BlockNumberOrHash],
  handler: async (ctx: EthContext, [id], req) => {
    const block = await findBlock(ctx, id, req);
    if (!block) return null;
    // The genesis block is stored without a receipts entry; it has no transactions.
    const receipts = (await ctx.chain.store.receipts(block.hash())) ?? [];
    if (receipts.length !== block.transactions.length) throw new Error(`database corrupt: block ${block.header.number} has ${receipts.length} receipts`);
    return formatBlockReceipts(block, receipts, ctx.renderedReceipts);
  },
});
