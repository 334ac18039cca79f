import type { BlockHeader } from '@ethereumjs/block';
import type { StoredLog } from '../../chain/receipts.js';

/**
 * A log filter applied to new blocks (a `logs` subscription, an `eth_newFilter` filter), as the
 * hub and the filter stores use it. `methods/` builds it from a request's criteria (the
 * addresses, topics and block bounds of eth_getLogs, checked with eth_getLogs' limits).
 */
export interface LiveLogFilter {
  /** The same for two filters that match the same logs (subscribers of one filter share its work). */
  readonly key: string;
  /** False when no log of a block with this header can match (range and bloom). */
  mayMatchBlock(header: BlockHeader): boolean;
  matches(log: StoredLog): boolean;
}
