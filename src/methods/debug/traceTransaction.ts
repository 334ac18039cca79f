import { Hash } from '../../codec/schemas.js';
import { ServerError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { evmRequest } from '../evmRequest.js';
import { REPLAY } from '../raises.js';
import { absentTraceConfig, requestedTimeout, resolveTracer, TraceConfigParam } from './_trace.js';

/**
 * `debug_traceTransaction(hash, traceConfig?)`: re-executes a mined transaction on the state
 * before it (its block's parent, then the transactions before it) with one of geth's tracers: the
 * struct logger by default (`disableStack`, `disableStorage`, `enableMemory`, `enableReturnData`,
 * `limit`), or `tracer` = `callTracer` (`tracerConfig`: `onlyTopCall`, `withLog`),
 * `prestateTracer` (`diffMode`, `disableCode`, `disableStorage`, `includeEmpty`) or
 * `4byteTracer`; `timeout` as a Go duration (default 5 s). Unknown hash: -32000 `transaction not
 * found`, as geth. geth's `DebugAPI.TraceTransaction` (ethereum/go-ethereum `eth/tracers/api.go`).
 */
export const traceTransaction = defineMethod({
  name: 'debug_traceTransaction',
  raises: REPLAY,
  cost: 'heavy', // replays the block in the EVM workers
  evm: true,
  params: [Hash, TraceConfigParam],
  required: 1,
  handler: async (ctx: EthContext, [hash, config], req) => {
    const location = await ctx.chain.store.txLocation(hash);
    if (!location) throw new ServerError('transaction not found');
    const block = await ctx.chain.store.blockByHash(location.blockHash);
    if (!block) throw new ServerError('transaction not found');
    if (block.header.number === 0n) throw new ServerError('genesis is not traceable');
    const tracer = resolveTracer(config ?? absentTraceConfig());
    const timeoutMs = requestedTimeout(config);
    const [trace] = await ctx.evm.debug.traceBlock(block, location.index, { tracer, timeoutMs }, evmRequest(req));
    if (!trace) throw new Error(`transaction ${location.index} of block ${block.header.number} was not traced`);
    return trace.result;
  },
});
