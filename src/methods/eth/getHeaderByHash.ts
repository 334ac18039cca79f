import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { formatHeader } from './_shared/formatBlock.js';

/** `eth_getHeaderByHash(hash)`: the header with this hash, as geth's `GetHeaderByHash`; `null` for an unknown hash. */
export const getHeaderByHash = defineMethod({
  name: 'eth_getHeaderByHash',
  raises: HISTORY,
  params: [Hash],
  handler: async (ctx: EthContext, [hash]) => {
    const header = await ctx.chain.store.headerByHash(hash);
    return header ? formatHeader(header) : null;
  },
});
