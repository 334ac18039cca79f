import { bigIntToQuantity } from '../../codec/hex.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';

/** `eth_maxPriorityFeePerGas`: the priority fee geth's oracle suggests from the last blocks' tips. */
export const maxPriorityFeePerGas = defineMethod({
  name: 'eth_maxPriorityFeePerGas',
  params: [],
  handler: async (ctx: EthContext) => bigIntToQuantity(await ctx.gasOracle.suggestTipCap()),
});
