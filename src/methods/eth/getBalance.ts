import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bigIntToQuantity } from '../../codec/hex.js';
import { Address } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { STATE } from '../raises.js';
import { resolveBlock } from './_shared/resolveBlock.js';

/** `eth_getBalance(address, block?)`: the balance in wei at a block (`0x0` for a missing account). */
export const getBalance = defineMethod({
  name: 'eth_getBalance',
  raises: STATE,
  params: [Address, BlockNumberOrHash],
  required: 1,
  handler: async (ctx: EthContext, [address, block], req) => {
    const header = await resolveBlock(ctx, block, req);
    return bigIntToQuantity((await ctx.state.account(header.stateRoot, address))?.balance ?? 0n);
  },
});
