import { bigIntToQuantity } from '../../codec/hex.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';

/** `eth_chainId`: the EIP-155 chain id of the imported chain (EIP-695). */
export const chainId = defineMethod({
  name: 'eth_chainId',
  raises: NONE,
  params: [],
  handler: (ctx: EthContext) => bigIntToQuantity(ctx.chain.common.chainId()),
});
