import type { MethodDefinition } from '../../rpc/method.js';
import { NONE } from '../raises.js';
import { forwardToFollowed, NEEDS } from './_shared/forward.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_addDeclareTransaction(declare_transaction)`: sends a declare transaction; answers its hash and class hash.
 * Forwarded to the followed upstream, its answer or error relayed unchanged (`_shared/forward.ts`);
 * -32601 `not served by this node` when the network follows none. Cheap here: nothing runs on this
 * node (the key's rate and quota count it).
 */
export const addDeclareTransaction: MethodDefinition<StarknetContext, 'starknet_addDeclareTransaction', readonly unknown[], unknown, never> = {
  name: 'starknet_addDeclareTransaction',
  raises: NONE,
  call: (ctx, params) => forwardToFollowed(ctx, 'starknet_addDeclareTransaction', params, NEEDS.mempool),
};
