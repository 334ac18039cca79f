import { bigIntToQuantity } from '../../codec/hex.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { headOf } from './_shared/head.js';

/** `eth_maxPriorityFeePerGas`: the priority fee geth's oracle suggests from the last blocks' tips. */
export const maxPriorityFeePerGas = defineMethod({
  name: 'eth_maxPriorityFeePerGas',
  raises: HISTORY,
  params: [],
  handler: async (ctx: EthContext, _args, req) => bigIntToQuantity(await ctx.gasOracle.suggestTipCap(await headOf(ctx, req))),
});
