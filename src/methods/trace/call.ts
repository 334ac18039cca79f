import { BlockNumberOrHash } from '../../codec/blockId.js';
import { TraceTypeList } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import { type RpcTraceResults, renderTraceResults } from '../../tracing/parityResults.js';
import type { EthContext } from '../context.js';
import { BlockOverrideSet, CallObject, StateOverrideSet } from '../eth/_shared/callArgs.js';
import { resolveBlock } from '../eth/_shared/resolveBlock.js';
import { evmRequest } from '../evmRequest.js';
import { REPLAY } from '../raises.js';
import { traceTypes } from './_adHoc.js';

/**
 * `trace_call(call, traceTypes, block?, stateOverrides?, blockOverrides?)`: runs a call as
 * eth_call does (same call object, default `latest`, gas cap, overrides, deadline and worker
 * queue) and answers `{output, stateDiff, trace, vmTrace}` for the types asked (`trace`,
 * `stateDiff`; `vmTrace` is refused with -32004). The call is settled as a transaction: with a
 * gas price the sender pays for the gas used and the coinbase receives the tip, as in the state
 * diff of reth and OpenEthereum; the default price is 0 (eth_call's). A reverted or failed call is
 * a result, not an error (its trace carries the error); an invalid message is eth_call's error.
 * The state and block overrides are reth's 4th and 5th parameters.
 * https://openethereum.github.io/JSONRPC-trace-module#trace_call,
 * https://reth.rs/jsonrpc/trace#trace_call
 */
export const traceCall = defineMethod({
  name: 'trace_call',
  raises: REPLAY,
  cost: 'heavy', // runs the EVM
  evm: true,
  params: [CallObject, TraceTypeList, BlockNumberOrHash, StateOverrideSet, BlockOverrideSet],
  required: 2,
  handler: async (ctx: EthContext, [request, list, block, state, blockOverrides], req): Promise<RpcTraceResults> => {
    const types = traceTypes(list);
    const header = await resolveBlock(ctx, block, req);
    const [run] = await ctx.evm.adHoc.traceCalls(header, [{ request, stateDiff: types.stateDiff }], { state, block: blockOverrides }, evmRequest(req));
    return renderTraceResults(run?.root, run?.diff, types);
  },
});
