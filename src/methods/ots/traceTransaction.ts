import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { REPLAY } from '../raises.js';
import { type OtsTraceEntry, otsTraceEntries, txCallTree } from './_shared/txTree.js';

/**
 * `ots_traceTransaction(hash)`: every frame of a transaction, depth first, with its depth, type,
 * addresses, value, input and output (erigon `otterscan_trace_transaction.go`; precompiles left
 * out). Unknown hash: `transaction 0x… not found` (-32000). Replays the block once (cached).
 */
export const otsTraceTransaction = defineMethod({
  name: 'ots_traceTransaction',
  raises: REPLAY,
  cost: 'heavy', // replays the block in the EVM workers (unless its traces are cached)
  evm: true,
  params: [Hash],
  handler: async (ctx: EthContext, [hash], req): Promise<OtsTraceEntry[]> => otsTraceEntries((await txCallTree(ctx, hash, req)).root),
});
