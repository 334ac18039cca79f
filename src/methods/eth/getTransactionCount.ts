import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bigIntToQuantity } from '../../codec/hex.js';
import { Address } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { resolveBlock } from './_shared/resolveBlock.js';

/** `eth_getTransactionCount(address, block?)`: the account nonce at a block (`0x0` if missing). */
export const getTransactionCount = defineMethod({
  name: 'eth_getTransactionCount',
  params: [Address, BlockNumberOrHash],
  required: 1,
  handler: async (ctx: EthContext, [address, block], req) => {
    const header = await resolveBlock(ctx, block, req);
    return bigIntToQuantity((await ctx.state.account(header.stateRoot, address))?.nonce ?? 0n);
  },
});
