import { defineMethod } from '../../rpc/method.js';
import { STARKNET_READ } from '../raises.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_blockNumber`: the number of the latest imported block, as a JSON integer.
 * Spec: starkware-libs/starknet-specs `api/starknet_api_openrpc.json`; no blocks → 32 NO_BLOCKS
 * (the store's `NoBlocksError`, mapped in `methods/errors.ts`).
 */
export const blockNumber = defineMethod({
  name: 'starknet_blockNumber',
  raises: STARKNET_READ,
  params: [],
  handler: (ctx: StarknetContext): Promise<number> => ctx.store.requireLatestNumber(),
});
