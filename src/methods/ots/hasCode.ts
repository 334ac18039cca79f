import { Address } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { resolveBlock } from '../eth/_shared/resolveBlock.js';
import { STATE } from '../raises.js';
import { OtsBlockNumberOrHash } from './_shared/params.js';

/**
 * `ots_hasCode(address, block)`: whether the account holds code at that block (erigon
 * `otterscan_has_code.go`), without sending the code. The block is a number (JSON number or hex),
 * a tag or a hash; errors as eth_getCode's.
 */
export const otsHasCode = defineMethod({
  name: 'ots_hasCode',
  raises: STATE,
  params: [Address, OtsBlockNumberOrHash],
  handler: async (ctx: EthContext, [address, block], req): Promise<boolean> => {
    const header = await resolveBlock(ctx, block, req);
    return (await ctx.state.code(header.stateRoot, address)).length > 0;
  },
});
