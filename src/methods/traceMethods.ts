import type { MethodDefinition } from '../rpc/method.js';
import type { EthContext } from './context.js';
import { traceBlock } from './trace/block.js';
import { traceFilter } from './trace/filter.js';
import { traceTransaction } from './trace/transaction.js';

/**
 * The Parity trace namespace, sorted by wire name (docs/methods.md#traces):
 * - `trace_block`: every trace of a block, then its rewards;
 * - `trace_filter`: traces of a block range matching from/to addresses, index-driven;
 * - `trace_transaction`: every trace of one transaction.
 */
export const traceMethods: readonly MethodDefinition<EthContext>[] = [
  traceBlock, // trace_block
  traceFilter, // trace_filter
  traceTransaction, // trace_transaction
];
