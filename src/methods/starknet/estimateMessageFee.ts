import type { MethodDefinition } from '../../rpc/method.js';
import { NONE } from '../raises.js';
import { forwardToFollowed, NEEDS } from './_shared/forward.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_estimateMessageFee(message, block_id)`: the fee of an L1 → L2 message, by running its handler.
 * Forwarded to the followed upstream, its answer or error relayed unchanged (`_shared/forward.ts`);
 * -32601 `not served by this node` when the network follows none. Cheap here: nothing runs on this
 * node (the key's rate and quota count it).
 */
export const estimateMessageFee: MethodDefinition<StarknetContext, 'starknet_estimateMessageFee', readonly unknown[], unknown, never> = {
  name: 'starknet_estimateMessageFee',
  raises: NONE,
  call: (ctx, params) => forwardToFollowed(ctx, 'starknet_estimateMessageFee', params, NEEDS.execution),
};
