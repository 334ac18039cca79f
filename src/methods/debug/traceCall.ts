import { BlockNumberOrHash } from '../../codec/blockId.js';
import { ServerError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { CallObject } from '../eth/_shared/callArgs.js';
import { resolveBlock } from '../eth/_shared/resolveBlock.js';
import { evmRequest } from '../evmRequest.js';
import { REPLAY } from '../raises.js';
import { absentTraceConfig, requestedTimeout, resolveTracer, TraceCallConfigParam } from './_trace.js';

/**
 * `debug_traceCall(callObject, block, traceCallConfig?)`: runs a call as eth_call runs it (same
 * gas cap, fee rules and state; the block parameter is required, as geth's is) under one of
 * geth's tracers, with the trace config of debug_traceTransaction plus `stateOverrides` and
 * `blockOverrides` (eth_call's). `pending` is refused as geth refuses it; `txIndex` (the state in
 * the middle of the block) is not served. geth's `API.TraceCall` (ethereum/go-ethereum
 * `eth/tracers/api.go`).
 */
export const traceCall = defineMethod({
  name: 'debug_traceCall',
  raises: REPLAY,
  cost: 'heavy', // runs the EVM
  evm: true,
  params: [CallObject, BlockNumberOrHash, TraceCallConfigParam],
  required: 2,
  handler: async (ctx: EthContext, [request, block, config], req) => {
    if (block?.kind === 'tag' && block.tag === 'pending') throw new ServerError('tracing on top of pending is not supported');
    const header = await resolveBlock(ctx, block, req);
    if (config?.txIndex !== undefined) throw new ServerError('txIndex is not supported: trace on the state after a whole block');
    const tracer = resolveTracer(config ?? absentTraceConfig());
    const timeoutMs = requestedTimeout(config);
    return ctx.evm.debug.traceCall(header, request, { state: config?.state, block: config?.block }, { tracer, timeoutMs }, evmRequest(req));
  },
});
