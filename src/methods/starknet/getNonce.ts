import { defineMethod } from '../../rpc/method.js';
import { stateBlockNumber } from '../../starknet/blockRef.js';
import { feltHex } from '../../starknet/stateReader.js';
import { STARKNET_STATE } from '../raises.js';
import { BlockId, Felt } from './_shared/schemas.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_getNonce(block_id, contract_address)`: the contract's nonce after the block
 * (`pending`/`pre_confirmed`: after the latest), from the stored state updates. Errors: 20
 * CONTRACT_NOT_FOUND, 24 BLOCK_NOT_FOUND; a block whose state is not held is -32000 saying so.
 */
export const getNonce = defineMethod({
  name: 'starknet_getNonce',
  raises: STARKNET_STATE,
  params: [BlockId, Felt],
  names: ['block_id', 'contract_address'],
  handler: async (ctx: StarknetContext, [blockId, address]): Promise<string> =>
    feltHex(await ctx.state.nonceAt(address, await stateBlockNumber(ctx.store, blockId))),
});
