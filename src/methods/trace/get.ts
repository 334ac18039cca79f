import { Hash, TraceIndexList } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import { flattenTx, type RpcTrace, renderFlatTrace } from '../../tracing/parity.js';
import type { EthContext } from '../context.js';
import { evmRequest } from '../evmRequest.js';
import { REPLAY } from '../raises.js';
import { tracerOf } from './_shared.js';

/**
 * `trace_get(hash, indices)`: the one trace of a transaction whose `traceAddress` equals
 * `indices` (`[]` is the root), as trace_transaction renders it; `null` when the transaction is
 * unknown or has no trace there (OpenEthereum). Indices are hex quantities or integers.
 * https://openethereum.github.io/JSONRPC-trace-module#trace_get
 */
export const traceGet = defineMethod({
  name: 'trace_get',
  raises: REPLAY,
  cost: 'heavy', // replays the block in the EVM workers (unless its traces are cached)
  evm: true,
  params: [Hash, TraceIndexList],
  handler: async (ctx: EthContext, [hash, indices], req): Promise<RpcTrace | null> => {
    const location = await ctx.chain.store.txLocation(hash);
    if (!location) return null;
    const traces = await tracerOf(ctx).tracesByHash(location.blockHash, evmRequest(req));
    const tree = traces?.txs[location.index];
    if (!traces || !tree) return null;
    const flat = flattenTx(tree.root).find((f) => f.traceAddress.length === indices.length && f.traceAddress.every((n, i) => n === indices[i]));
    return flat ? renderFlatTrace(flat, tree, { blockNumber: traces.number, blockHash: traces.hash }) : null;
  },
});
