import type { MethodDefinition } from '../rpc/method.js';
import type { EthContext } from './context.js';
import { getRawBlock } from './debug/getRawBlock.js';
import { getRawHeader } from './debug/getRawHeader.js';
import { getRawReceipts } from './debug/getRawReceipts.js';
import { getRawTransaction } from './debug/getRawTransaction.js';

/** geth's raw getters of the debug namespace (consensus encodings), sorted by wire name. */
export const debugMethods: readonly MethodDefinition<EthContext>[] = [
  getRawBlock, // debug_getRawBlock
  getRawHeader, // debug_getRawHeader
  getRawReceipts, // debug_getRawReceipts
  getRawTransaction, // debug_getRawTransaction
];
