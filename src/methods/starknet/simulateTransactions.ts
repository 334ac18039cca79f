import type { MethodDefinition } from '../../rpc/method.js';
import { NONE } from '../raises.js';
import { forwardToFollowed, NEEDS } from './_shared/forward.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_simulateTransactions(block_id, transactions, simulation_flags)`: traces and fees of transactions run on a block's state.
 * Forwarded to the followed upstream, its answer or error relayed unchanged (`_shared/forward.ts`);
 * -32601 `not served by this node` when the network follows none. Cheap here: nothing runs on this
 * node (the key's rate and quota count it).
 */
export const simulateTransactions: MethodDefinition<StarknetContext, 'starknet_simulateTransactions', readonly unknown[], unknown, never> = {
  name: 'starknet_simulateTransactions',
  raises: NONE,
  call: (ctx, params) => forwardToFollowed(ctx, 'starknet_simulateTransactions', params, NEEDS.execution),
};
