import type { MethodDefinition } from '../../rpc/method.js';
import { NONE } from '../raises.js';
import { forwardToFollowed, NEEDS } from './_shared/forward.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_getCompiledCasm(class_hash)`: the compiled (CASM) form of a class (spec 0.8 `starknet_executables.json`).
 * Forwarded to the followed upstream, its answer or error relayed unchanged (`_shared/forward.ts`);
 * -32601 `not served by this node` when the network follows none. Cheap here: nothing runs on this
 * node (the key's rate and quota count it).
 */
export const getCompiledCasm: MethodDefinition<StarknetContext, 'starknet_getCompiledCasm', readonly unknown[], unknown, never> = {
  name: 'starknet_getCompiledCasm',
  raises: NONE,
  call: (ctx, params) => forwardToFollowed(ctx, 'starknet_getCompiledCasm', params, NEEDS.casm),
};
