import type { MethodDefinition } from '../../rpc/method.js';
import { NONE } from '../raises.js';
import { forwardToFollowed, NEEDS } from './_shared/forward.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_getMessagesStatus(transaction_hash)`: the L1 handler transactions an L1 transaction's messages started. The blocks name no L1 transaction (an L1_HANDLER transaction carries the message, not the hash of the L1 transaction that sent it), so the stored data cannot answer it.
 * Forwarded to the followed upstream, its answer or error relayed unchanged (`_shared/forward.ts`);
 * -32601 `not served by this node` when the network follows none. Cheap here: nothing runs on this
 * node (the key's rate and quota count it).
 */
export const getMessagesStatus: MethodDefinition<StarknetContext, 'starknet_getMessagesStatus', readonly unknown[], unknown, never> = {
  name: 'starknet_getMessagesStatus',
  raises: NONE,
  call: (ctx, params) => forwardToFollowed(ctx, 'starknet_getMessagesStatus', params, NEEDS.l1),
};
