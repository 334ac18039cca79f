import type { MethodDefinition } from '../rpc/method.js';
import type { EthContext } from './context.js';
import { traceBlock } from './trace/block.js';
import { traceCall } from './trace/call.js';
import { traceCallMany } from './trace/callMany.js';
import { traceFilter } from './trace/filter.js';
import { traceGet } from './trace/get.js';
import { traceRawTransaction } from './trace/rawTransaction.js';
import { traceReplayBlockTransactions } from './trace/replayBlockTransactions.js';
import { traceReplayTransaction } from './trace/replayTransaction.js';
import { traceTransaction } from './trace/transaction.js';

/**
 * The Parity trace namespace, sorted by wire name (docs/methods.md#traces):
 * - `trace_block`: every trace of a block, then its rewards;
 * - `trace_call`, `trace_callMany`, `trace_rawTransaction`: ad-hoc tracing of calls (`trace`, `stateDiff`);
 * - `trace_filter`: traces of a block range matching from/to addresses, index-driven;
 * - `trace_get`: one trace of a transaction by its trace address;
 * - `trace_replayBlockTransactions`, `trace_replayTransaction`: stored transactions replayed (`trace`, `stateDiff`);
 * - `trace_transaction`: every trace of one transaction.
 */
export const traceMethods = [
  traceBlock, // trace_block
  traceCall, // trace_call
  traceCallMany, // trace_callMany
  traceFilter, // trace_filter
  traceGet, // trace_get
  traceRawTransaction, // trace_rawTransaction
  traceReplayBlockTransactions, // trace_replayBlockTransactions
  traceReplayTransaction, // trace_replayTransaction
  traceTransaction, // trace_transaction
] as const satisfies readonly MethodDefinition<EthContext>[];
