import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bigIntToQuantity } from '../../codec/hex.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { keptEvmRequest } from '../evmRequest.js';
import { EVM_RUN } from '../raises.js';
import { BlockOverrideSet, CallObject, StateOverrideSet } from './_shared/callArgs.js';
import { resolveBlock } from './_shared/resolveBlock.js';

/**
 * `eth_estimateGas(callObject, block?, stateOverrides?, blockOverrides?)`: the gas limit the call
 * needs, by geth's binary search (ethereum/go-ethereum `eth/gasestimator`, within 1.5%). A call that
 * reverts even with the most gas gives the same code-3 error as eth_call; one that runs out of gas
 * even at the cap gives `-32000 gas required exceeds allowance (<cap>)`.
 * https://ethereum.github.io/execution-apis/api-documentation/ (eth_estimateGas)
 */
export const estimateGas = defineMethod({
  name: 'eth_estimateGas',
  raises: EVM_RUN,
  cost: 'heavy', // runs the EVM
  evm: true,
  params: [CallObject, BlockNumberOrHash, StateOverrideSet, BlockOverrideSet],
  required: 1,
  handler: async (ctx: EthContext, [request, block, state, blockOverrides], req) => {
    const header = await resolveBlock(ctx, block, req);
    const gas = await ctx.execution.estimateGas(header, request, { state, block: blockOverrides }, keptEvmRequest(req, block));
    return bigIntToQuantity(gas);
  },
});
