import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bytesToData } from '../../codec/hex.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { failedRunError } from '../errors.js';
import { keptEvmRequest } from '../evmRequest.js';
import { EVM_RUN } from '../raises.js';
import { BlockOverrideSet, CallObject, StateOverrideSet } from './_shared/callArgs.js';
import { resolveBlock } from './_shared/resolveBlock.js';

/**
 * `eth_call(callObject, block?, stateOverrides?, blockOverrides?)`: executes a message call on the
 * state after `block` (default `latest`, as geth) and returns the returned bytes; for a contract
 * creation (no `to`) the deployed runtime code.
 * https://ethereum.github.io/execution-apis/api-documentation/ (eth_call)
 */
export const call = defineMethod({
  name: 'eth_call',
  raises: EVM_RUN,
  cost: 'heavy', // runs the EVM
  evm: true,
  params: [CallObject, BlockNumberOrHash, StateOverrideSet, BlockOverrideSet],
  required: 1,
  handler: async (ctx: EthContext, [request, block, state, blockOverrides], req) => {
    const header = await resolveBlock(ctx, block, req);
    const result = await ctx.execution.call(header, request, { state, block: blockOverrides }, keptEvmRequest(req, block));
    if (result.failure) throw failedRunError(result);
    return bytesToData(result.returnValue);
  },
});
