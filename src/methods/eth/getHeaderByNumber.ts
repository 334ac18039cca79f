import { BlockNumberOrTag } from '../../codec/blockId.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { formatHeader } from './_shared/formatBlock.js';
import { blockNumberOf } from './_shared/resolveBlock.js';

/**
 * `eth_getHeaderByNumber(block)`: the canonical header at a number or tag, as geth's
 * `GetHeaderByNumber` (the block object without transactions, uncles, withdrawals and size);
 * `null` beyond the head.
 */
export const getHeaderByNumber = defineMethod({
  name: 'eth_getHeaderByNumber',
  raises: HISTORY,
  params: [BlockNumberOrTag],
  handler: async (ctx: EthContext, [id], req) => {
    const store = ctx.chain.store;
    const header = id.kind === 'hash' ? await store.headerByHash(id.hash) : await store.headerByNumber(await blockNumberOf(ctx, id, req));
    return header ? formatHeader(header) : null;
  },
});
