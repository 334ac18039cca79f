import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { formatHeader, type RpcHeader } from '../eth/_shared/formatBlock.js';
import { blockNumberOf } from '../eth/_shared/resolveBlock.js';
import { HISTORY } from '../raises.js';
import { OtsBlockNumber } from './_shared/params.js';

/**
 * `ots_getHeaderByNumber(number)`: the canonical header at a number or tag, `null` beyond the head
 * (reth's name for erigon_getHeaderByNumber, which Otterscan calls; reth answers null where erigon
 * errs). The number may be a JSON number, a hex or decimal string, or a tag.
 */
export const otsGetHeaderByNumber = defineMethod({
  name: 'ots_getHeaderByNumber',
  raises: HISTORY,
  params: [OtsBlockNumber],
  handler: async (ctx: EthContext, [id], req): Promise<RpcHeader | null> => {
    const header = await ctx.chain.store.headerByNumber(await blockNumberOf(ctx, id, req));
    return header ? formatHeader(header) : null;
  },
});
