import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bytesToData } from '../../codec/hex.js';
import { BlockOverrideSet, CallObject, StateOverrideSet } from '../../execution/callArgs.js';
import { CallError, type CallResult, ExecutionFailedError } from '../../execution/callResult.js';
import { revertMessage } from '../../execution/revert.js';
import { ExecutionRevertedError, type RpcError, ServerError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { resolveBlock } from './_shared/resolveBlock.js';

/**
 * The wire error of a failed run, as geth sends it: a revert is code 3 with `execution reverted[:
 * <reason>]` and the revert bytes as `data` (always present, `0x` when empty); any other EVM
 * failure is -32000 with geth's text (`out of gas`, `invalid opcode: INVALID`, …).
 */
export function failedRunError(result: CallResult): RpcError {
  if (result.failure?.kind === 'revert') {
    return new ExecutionRevertedError(revertMessage(result.returnValue), bytesToData(result.returnValue));
  }
  return new ServerError(result.failure?.kind === 'halt' ? result.failure.message : 'execution failed');
}

/** Maps the call engine's domain errors to wire errors; anything else passes through. */
export function callErrorToRpc(err: unknown): never {
  if (err instanceof ExecutionFailedError) throw failedRunError(err.result);
  if (err instanceof CallError) throw new ServerError(err.message);
  throw err;
}

/**
 * `eth_call(callObject, block?, stateOverrides?, blockOverrides?)`: executes a message call on the
 * state after `block` (default `latest`, as geth) and returns the returned bytes; for a contract
 * creation (no `to`) the deployed runtime code.
 * https://ethereum.github.io/execution-apis/api-documentation/ (eth_call)
 */
export const call = defineMethod({
  name: 'eth_call',
  params: [CallObject, BlockNumberOrHash, StateOverrideSet, BlockOverrideSet],
  required: 1,
  handler: async (ctx: EthContext, [request, block, state, blockOverrides]) => {
    const header = await resolveBlock(ctx, block);
    const result = await ctx.execution.call(header, request, { state, block: blockOverrides }).catch(callErrorToRpc);
    if (result.failure) throw failedRunError(result);
    return bytesToData(result.returnValue);
  },
});
