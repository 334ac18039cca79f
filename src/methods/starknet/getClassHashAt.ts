import { defineMethod } from '../../rpc/method.js';
import { stateBlockNumber } from '../../starknet/blockRef.js';
import { feltHex } from '../../starknet/stateReader.js';
import { STARKNET_STATE } from '../raises.js';
import { BlockId, Felt } from './_shared/schemas.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_getClassHashAt(block_id, contract_address)`: the class hash of the contract at the
 * address after the block, from the stored state updates (deployed contracts, replaced classes).
 * Errors: 20 CONTRACT_NOT_FOUND, 24 BLOCK_NOT_FOUND; a block whose state is not held is -32000.
 */
export const getClassHashAt = defineMethod({
  name: 'starknet_getClassHashAt',
  raises: STARKNET_STATE,
  params: [BlockId, Felt],
  names: ['block_id', 'contract_address'],
  handler: async (ctx: StarknetContext, [blockId, address]): Promise<string> =>
    feltHex(await ctx.state.classHashAt(address, await stateBlockNumber(ctx.store, blockId))),
});
