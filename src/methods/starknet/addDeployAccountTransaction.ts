import type { MethodDefinition } from '../../rpc/method.js';
import { NONE } from '../raises.js';
import { forwardToFollowed, NEEDS } from './_shared/forward.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_addDeployAccountTransaction(deploy_account_transaction)`: sends a deploy-account transaction; answers its hash and address.
 * Forwarded to the followed upstream, its answer or error relayed unchanged (`_shared/forward.ts`);
 * -32601 `not served by this node` when the network follows none. Cheap here: nothing runs on this
 * node (the key's rate and quota count it).
 */
export const addDeployAccountTransaction: MethodDefinition<StarknetContext, 'starknet_addDeployAccountTransaction', readonly unknown[], unknown, never> = {
  name: 'starknet_addDeployAccountTransaction',
  raises: NONE,
  call: (ctx, params) => forwardToFollowed(ctx, 'starknet_addDeployAccountTransaction', params, NEEDS.mempool),
};
