import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { formatReceipt } from './_shared/formatReceipt.js';

/**
 * `eth_getTransactionReceipt(hash)`: the receipt of a mined transaction, its logs numbered across
 * the block; `null` for an unknown hash.
 */
export const getTransactionReceipt = defineMethod({
  name: 'eth_getTransactionReceipt',
  params: [Hash],
  handler: async (ctx: EthContext, [hash]) => {
    const store = ctx.chain.store;
    const at = await store.txLocation(hash);
    if (!at) return null;
    const [block, receipts] = await Promise.all([store.blockByHash(at.blockHash), store.receipts(at.blockHash)]);
    if (!block || !receipts || at.index >= block.transactions.length) return null;
    return formatReceipt(block, receipts, at.index);
  },
});
