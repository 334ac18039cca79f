import { bigIntToQuantity } from '../../codec/hex.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { headOf } from './_shared/head.js';

/**
 * `eth_gasPrice`: a legacy gas price suggestion, geth's: the oracle's tip plus the head's base fee
 * (the tip alone before London).
 */
export const gasPrice = defineMethod({
  name: 'eth_gasPrice',
  raises: HISTORY,
  params: [],
  handler: async (ctx: EthContext, _args, req) => {
    // One head for both parts of the answer: the oracle's samples and the base fee.
    const head = await headOf(ctx, req);
    const tip = await ctx.gasOracle.suggestTipCap(head);
    const header = head ? await ctx.chain.store.headerOfHead(head) : undefined;
    return bigIntToQuantity(tip + (header?.baseFeePerGas ?? 0n));
  },
});
