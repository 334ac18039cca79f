import { bigIntToQuantity } from '../../codec/hex.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';

/**
 * `eth_gasPrice`: a legacy gas price suggestion, geth's: the oracle's tip plus the head's base fee
 * (the tip alone before London).
 */
export const gasPrice = defineMethod({
  name: 'eth_gasPrice',
  params: [],
  handler: async (ctx: EthContext) => {
    const tip = await ctx.gasOracle.suggestTipCap();
    const head = await ctx.chain.store.head();
    const header = head ? await ctx.chain.store.headerByHash(head.hash) : undefined;
    return bigIntToQuantity(tip + (header?.baseFeePerGas ?? 0n));
  },
});
