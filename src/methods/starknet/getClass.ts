import { defineMethod } from '../../rpc/method.js';
import { stateBlockNumber } from '../../starknet/blockRef.js';
import { STARKNET_STATE } from '../raises.js';
import { BlockId, Felt } from './_shared/schemas.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_getClass(block_id, class_hash)`: the class definition (CONTRACT_CLASS or
 * DEPRECATED_CONTRACT_CLASS) when the class is declared by the block. Declarations come from the
 * stored state updates; definitions are fetched once from the followed upstream and kept by hash.
 * Errors: 24 BLOCK_NOT_FOUND, 28 CLASS_HASH_NOT_FOUND; a definition no upstream can give is -32000.
 */
export const getClass = defineMethod({
  name: 'starknet_getClass',
  raises: STARKNET_STATE,
  params: [BlockId, Felt],
  names: ['block_id', 'class_hash'],
  handler: async (ctx: StarknetContext, [blockId, classHash]) => ctx.state.classAt(classHash, await stateBlockNumber(ctx.store, blockId)),
});
