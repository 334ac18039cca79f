import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bytesToData } from '../../codec/hex.js';
import { Address } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { STATE } from '../raises.js';
import { resolveBlock } from './_shared/resolveBlock.js';

/** `eth_getCode(address, block?)`: the runtime code at a block (`0x` for none; EIP-7702 delegations as stored). */
export const getCode = defineMethod({
  name: 'eth_getCode',
  raises: STATE,
  params: [Address, BlockNumberOrHash],
  required: 1,
  handler: async (ctx: EthContext, [address, block], req) => {
    const header = await resolveBlock(ctx, block, req);
    return bytesToData(await ctx.state.code(header.stateRoot, address));
  },
});
