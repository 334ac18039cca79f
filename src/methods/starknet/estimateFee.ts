import type { MethodDefinition } from '../../rpc/method.js';
import { NONE } from '../raises.js';
import { forwardToFollowed, NEEDS } from './_shared/forward.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_estimateFee(request, simulation_flags, block_id)`: the fee of transactions, by running them.
 * Forwarded to the followed upstream, its answer or error relayed unchanged (`_shared/forward.ts`);
 * -32601 `not served by this node` when the network follows none. Cheap here: nothing runs on this
 * node (the key's rate and quota count it).
 */
export const estimateFee: MethodDefinition<StarknetContext, 'starknet_estimateFee', readonly unknown[], unknown, never> = {
  name: 'starknet_estimateFee',
  raises: NONE,
  call: (ctx, params) => forwardToFollowed(ctx, 'starknet_estimateFee', params, NEEDS.execution),
};
