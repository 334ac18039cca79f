import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import { type RpcTrace, renderTx } from '../../tracing/parity.js';
import type { EthContext } from '../context.js';
import { evmRequest } from '../evmRequest.js';
import { REPLAY } from '../raises.js';
import { tracerOf } from './_shared.js';

/** `trace_transaction` result: the transaction's traces, or null for an unknown hash. */
export type TraceTransactionResult = RpcTrace[] | null;

/**
 * `trace_transaction(hash)`: every Parity trace of one transaction, in execution order (no
 * rewards). Unknown hash → `null`, as OpenEthereum, erigon and reth answer. The block is replayed
 * once and cached, so asking for several transactions of one block is cheap.
 * https://openethereum.github.io/JSONRPC-trace-module#trace_transaction
 */
export const traceTransaction = defineMethod({
  name: 'trace_transaction',
  raises: REPLAY,
  cost: 'heavy', // replays the block in the EVM workers (unless its traces are cached)
  evm: true,
  params: [Hash],
  handler: async (ctx: EthContext, [hash], req): Promise<TraceTransactionResult> => {
    const store = ctx.chain.store;
    const location = await store.txLocation(hash);
    if (!location) return null;
    const traces = await tracerOf(ctx).tracesByHash(location.blockHash, evmRequest(req));
    if (!traces) return null;
    const tree = traces.txs[location.index];
    if (!tree) throw new Error(`transaction ${location.index} of block ${traces.number} was not traced`);
    return renderTx(tree, { blockNumber: traces.number, blockHash: traces.hash });
  },
});
