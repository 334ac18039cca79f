import type { MethodDefinition } from '../../rpc/method.js';
import { NONE } from '../raises.js';
import { forwardToFollowed, NEEDS } from './_shared/forward.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_getStorageProof(block_id, class_hashes, contract_addresses, contracts_storage_keys)`: Merkle proofs against a block's state root.
 * Forwarded to the followed upstream, its answer or error relayed unchanged (`_shared/forward.ts`);
 * -32601 `not served by this node` when the network follows none. Cheap here: nothing runs on this
 * node (the key's rate and quota count it).
 */
export const getStorageProof: MethodDefinition<StarknetContext, 'starknet_getStorageProof', readonly unknown[], unknown, never> = {
  name: 'starknet_getStorageProof',
  raises: NONE,
  call: (ctx, params) => forwardToFollowed(ctx, 'starknet_getStorageProof', params, NEEDS.tries),
};
