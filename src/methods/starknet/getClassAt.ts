import { defineMethod } from '../../rpc/method.js';
import { stateBlockNumber } from '../../starknet/blockRef.js';
import { STARKNET_STATE } from '../raises.js';
import { BlockId, Felt } from './_shared/schemas.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_getClassAt(block_id, contract_address)`: the class definition of the contract at the
 * address after the block: `starknet_getClass` of its `starknet_getClassHashAt`. Errors: 20
 * CONTRACT_NOT_FOUND, 24 BLOCK_NOT_FOUND.
 */
export const getClassAt = defineMethod({
  name: 'starknet_getClassAt',
  raises: STARKNET_STATE,
  params: [BlockId, Felt],
  names: ['block_id', 'contract_address'],
  handler: async (ctx: StarknetContext, [blockId, address]) => {
    const block = await stateBlockNumber(ctx.store, blockId);
    return ctx.state.classAt(await ctx.state.classHashAt(address, block), block);
  },
});
