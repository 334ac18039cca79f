import type { MethodDefinition } from '../rpc/method.js';
import type { EthContext } from './context.js';
import { executionWitness } from './debug/executionWitness.js';
import { getRawBlock } from './debug/getRawBlock.js';
import { getRawHeader } from './debug/getRawHeader.js';
import { getRawReceipts } from './debug/getRawReceipts.js';
import { getRawTransaction } from './debug/getRawTransaction.js';
import { traceBlockByHash } from './debug/traceBlockByHash.js';
import { traceBlockByNumber } from './debug/traceBlockByNumber.js';
import { traceCall } from './debug/traceCall.js';
import { traceTransaction } from './debug/traceTransaction.js';

/** geth's debug namespace: raw getters (consensus encodings), tracers and block witnesses, sorted by wire name. */
export const debugMethods = [
  executionWitness, // debug_executionWitness
  getRawBlock, // debug_getRawBlock
  getRawHeader, // debug_getRawHeader
  getRawReceipts, // debug_getRawReceipts
  getRawTransaction, // debug_getRawTransaction
  traceBlockByHash, // debug_traceBlockByHash
  traceBlockByNumber, // debug_traceBlockByNumber
  traceCall, // debug_traceCall
  traceTransaction, // debug_traceTransaction
] as const satisfies readonly MethodDefinition<EthContext>[];
