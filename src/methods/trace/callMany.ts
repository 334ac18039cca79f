import { z } from 'zod';
import { BlockNumberOrHash } from '../../codec/blockId.js';
import { jsonType, TraceTypeList, type TraceTypeName } from '../../codec/schemas.js';
import type { CallRequest } from '../../execution/callArgs.js';
import { LimitExceededError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import { type RpcTraceResults, renderTraceResults } from '../../tracing/parityResults.js';
import type { EthContext } from '../context.js';
import { CallObject } from '../eth/_shared/callArgs.js';
import { resolveBlock } from '../eth/_shared/resolveBlock.js';
import { evmRequest } from '../evmRequest.js';
import { REPLAY } from '../raises.js';
import { traceTypes } from './_adHoc.js';

/** The list of `[call, traceTypes]` pairs, each decoded as trace_call's first two parameters. */
const CallList = z.unknown().transform((value, ctx): Array<{ request: CallRequest; types: Set<TraceTypeName> }> => {
  const fail = (path: (string | number)[], message: string): never => {
    ctx.addIssue({ code: 'custom', path, message });
    return z.NEVER as never;
  };
  if (!Array.isArray(value)) return fail([], `invalid type: ${jsonType(value)}, expected a sequence`);
  return value.map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) return fail([i], 'expected a [call, traceTypes] pair');
    const request = CallObject.safeParse(pair[0]);
    if (!request.success)
      return fail([i, 0, ...((request.error.issues[0]?.path ?? []) as (string | number)[])], request.error.issues[0]?.message ?? 'invalid call');
    const types = TraceTypeList.safeParse(pair[1]);
    if (!types.success)
      return fail([i, 1, ...((types.error.issues[0]?.path ?? []) as (string | number)[])], types.error.issues[0]?.message ?? 'invalid trace types');
    return { request: request.data, types: types.data };
  });
});

/**
 * `trace_callMany([[call, traceTypes], …], block?)`: trace_call for each call in order, each on
 * the state the previous ones left (their state changes and settled fees), at `block` (default
 * `latest`); one result per call. All calls run in one EVM job under one eth_call deadline; more
 * than `rpc.traceCallManyMaxCalls` calls → -32005. An invalid message in any call fails the request.
 * https://openethereum.github.io/JSONRPC-trace-module#trace_callmany
 */
export const traceCallMany = defineMethod({
  name: 'trace_callMany',
  raises: REPLAY,
  cost: 'heavy', // runs the EVM
  evm: true,
  params: [CallList, BlockNumberOrHash],
  required: 1,
  handler: async (ctx: EthContext, [list, block], req): Promise<RpcTraceResults[]> => {
    const calls = list.map((c) => ({ request: c.request, types: traceTypes(c.types) }));
    const max = ctx.limits.traceCallManyMaxCalls;
    if (calls.length > max) throw new LimitExceededError(`too many calls: ${calls.length} (at most ${max} in one trace_callMany)`);
    const header = await resolveBlock(ctx, block, req);
    if (calls.length === 0) return [];
    const items = calls.map((c) => ({ request: c.request, stateDiff: c.types.stateDiff }));
    const runs = await ctx.evm.adHoc.traceCalls(header, items, {}, evmRequest(req));
    return calls.map((c, i) => renderTraceResults(runs[i]?.root, runs[i]?.diff, c.types));
  },
});
