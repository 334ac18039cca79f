import { bigIntToQuantity } from '../../codec/hex.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';
import { headOf } from './_shared/head.js';

/** `eth_blockNumber`: the number of the head block (the last fully imported block). */
export const blockNumber = defineMethod({
  name: 'eth_blockNumber',
  raises: NONE,
  params: [],
  handler: async (ctx: EthContext, _args, req) => {
    const head = await headOf(ctx, req);
    return bigIntToQuantity(head?.number ?? 0n);
  },
});
