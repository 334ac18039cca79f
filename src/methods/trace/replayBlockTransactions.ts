import { bytesToData } from '../../codec/hex.js';
import { TraceTypeList } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import { type RpcTraceResults, renderTraceResults } from '../../tracing/parityResults.js';
import type { EthContext } from '../context.js';
import { evmRequest } from '../evmRequest.js';
import { REPLAY } from '../raises.js';
import { traceTypes } from './_adHoc.js';
import { TraceBlockNumber, traceBlockNumber, tracerOf } from './_shared.js';

/** One transaction's entry: its trace results and hash. */
export type RpcReplayedTx = RpcTraceResults & { transactionHash: string };

/**
 * `trace_replayBlockTransactions(block, traceTypes)`: trace_replayTransaction for every
 * transaction of a block, in order, each entry with its `transactionHash` (reth, anvil). The block
 * parameter is trace_block's (number, `earliest`, `latest`, `pending`); a block beyond the head is
 * `null`, one without transactions (the genesis) `[]`. With `stateDiff` each transaction's diff is
 * against the state the previous one left.
 * https://openethereum.github.io/JSONRPC-trace-module#trace_replayblocktransactions
 */
export const traceReplayBlockTransactions = defineMethod({
  name: 'trace_replayBlockTransactions',
  raises: REPLAY,
  cost: 'heavy', // replays the block in the EVM workers
  evm: true,
  params: [TraceBlockNumber, TraceTypeList],
  handler: async (ctx: EthContext, [id, list], req): Promise<RpcReplayedTx[] | null> => {
    const types = traceTypes(list);
    const hash = await ctx.chain.store.canonicalHash(await traceBlockNumber(ctx, id, req));
    const block = hash && (await ctx.chain.store.blockByHash(hash));
    if (!block) return null;
    if (block.header.number === 0n || block.transactions.length === 0) return [];
    const runs = types.stateDiff
      ? await ctx.evm.adHoc.replayDiffs(block, undefined, evmRequest(req))
      : (await tracerOf(ctx).blockTraces(block, evmRequest(req))).txs.map((tree) => ({ tree, diff: undefined }));
    return runs.map(({ tree, diff }) => ({ ...renderTraceResults(tree.root, diff, types), transactionHash: bytesToData(tree.txHash) }));
  },
});
