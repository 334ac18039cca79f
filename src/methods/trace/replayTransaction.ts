import { Hash, TraceTypeList } from '../../codec/schemas.js';
import { ResourceNotFoundError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import { type RpcTraceResults, renderTraceResults } from '../../tracing/parityResults.js';
import type { EthContext } from '../context.js';
import { evmRequest } from '../evmRequest.js';
import { REPLAY } from '../raises.js';
import { traceTypes } from './_adHoc.js';
import { tracerOf } from './_shared.js';

/**
 * `trace_replayTransaction(hash, traceTypes)`: replays a stored transaction in its block (on the
 * state the transactions before it left) and answers `{output, stateDiff, trace, vmTrace}`.
 * `trace` equals trace_transaction's traces without their block and transaction fields (the same
 * cached replay answers it); `stateDiff` replays the block in the EVM workers with the state
 * recorder on that transaction. Unknown hash → -32001 `transaction not found` (reth).
 * https://openethereum.github.io/JSONRPC-trace-module#trace_replaytransaction
 */
export const traceReplayTransaction = defineMethod({
  name: 'trace_replayTransaction',
  raises: REPLAY,
  cost: 'heavy', // replays the block in the EVM workers
  evm: true,
  params: [Hash, TraceTypeList],
  handler: async (ctx: EthContext, [hash, list], req): Promise<RpcTraceResults> => {
    const types = traceTypes(list);
    const location = await ctx.chain.store.txLocation(hash);
    const block = location && (await ctx.chain.store.blockByHash(location.blockHash));
    if (!location || !block) throw new ResourceNotFoundError('transaction not found');
    if (types.stateDiff) {
      const replayed = (await ctx.evm.adHoc.replayDiffs(block, location.index, evmRequest(req)))[location.index];
      if (!replayed) throw new Error(`transaction ${location.index} of block ${block.header.number} was not replayed`);
      return renderTraceResults(replayed.tree.root, replayed.diff, types);
    }
    const traces = await tracerOf(ctx).blockTraces(block, evmRequest(req));
    const tree = traces.txs[location.index];
    if (!tree) throw new Error(`transaction ${location.index} of block ${traces.number} was not traced`);
    return renderTraceResults(tree.root, undefined, types);
  },
});
