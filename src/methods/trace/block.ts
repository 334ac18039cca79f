import { defineMethod } from '../../rpc/method.js';
import { type RpcTrace, renderBlock } from '../../tracing/parity.js';
import type { EthContext } from '../context.js';
import { evmRequest } from '../evmRequest.js';
import { REPLAY } from '../raises.js';
import { TraceBlockNumber, traceBlockNumber, tracerOf } from './_shared.js';

/** `trace_block` result: the block's traces, or null for a block beyond the head. */
export type TraceBlockResult = RpcTrace[] | null;

/**
 * `trace_block(block)`: every transaction's traces, then the block and uncle rewards (pre-merge
 * proof-of-work blocks only). The parameter is a hex number or `earliest`/`latest`/`pending`
 * (pending = latest: an imported chain has no pending block); other tags and hashes are invalid
 * params. The genesis has no traces (`[]`); an unknown block is `null` (OpenEthereum;
 * docs/methods.md#trace_transaction-trace_block).
 * https://openethereum.github.io/JSONRPC-trace-module#trace_block
 */
export const traceBlock = defineMethod({
  name: 'trace_block',
  raises: REPLAY,
  cost: 'heavy', // replays the block in the EVM workers (unless its traces are cached)
  evm: true,
  params: [TraceBlockNumber],
  handler: async (ctx: EthContext, [id], req): Promise<TraceBlockResult> => {
    const hash = await ctx.chain.store.canonicalHash(await traceBlockNumber(ctx, id, req));
    const traces = hash && (await tracerOf(ctx).tracesByHash(hash, evmRequest(req)));
    if (!traces) return null;
    return renderBlock(traces.txs, traces.rewards, { blockNumber: traces.number, blockHash: traces.hash });
  },
});
