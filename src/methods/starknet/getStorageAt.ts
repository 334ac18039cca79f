import { defineMethod } from '../../rpc/method.js';
import { stateBlockNumber } from '../../starknet/blockRef.js';
import { feltHex } from '../../starknet/stateReader.js';
import { STARKNET_STATE } from '../raises.js';
import { BlockId, Felt } from './_shared/schemas.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_getStorageAt(contract_address, key, block_id)`: the value of a storage slot after the
 * block (`pending`/`pre_confirmed`: after the latest), from the stored state updates
 * (`starknet/stateReader.ts`). A slot never written reads 0x0 on a deployed contract. Errors: 20
 * CONTRACT_NOT_FOUND, 24 BLOCK_NOT_FOUND; a block whose state is not held is -32000 saying so.
 */
export const getStorageAt = defineMethod({
  name: 'starknet_getStorageAt',
  raises: STARKNET_STATE,
  params: [Felt, Felt, BlockId],
  names: ['contract_address', 'key', 'block_id'],
  handler: async (ctx: StarknetContext, [address, key, blockId]): Promise<string> =>
    feltHex(await ctx.state.storageAt(address, key, await stateBlockNumber(ctx.store, blockId))),
});
