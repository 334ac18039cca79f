import type { MethodDefinition } from '../rpc/method.js';
import type { EthContext } from './context.js';
import { getFilterChanges } from './eth/getFilterChanges.js';
import { getFilterLogs } from './eth/getFilterLogs.js';
import { newBlockFilter } from './eth/newBlockFilter.js';
import { newFilter } from './eth/newFilter.js';
import { newPendingTransactionFilter } from './eth/newPendingTransactionFilter.js';
import { subscribe } from './eth/subscribe.js';
import { uninstallFilter } from './eth/uninstallFilter.js';
import { unsubscribe } from './eth/unsubscribe.js';

/**
 * Subscriptions (WebSocket) and polled filters (any transport), fed by the chain events of the
 * network (`live/eth/`), sorted by wire name; merged into the Ethereum method table.
 */
export const subscriptionMethods = [
  getFilterChanges, // eth_getFilterChanges
  getFilterLogs, // eth_getFilterLogs
  newBlockFilter, // eth_newBlockFilter
  newFilter, // eth_newFilter
  newPendingTransactionFilter, // eth_newPendingTransactionFilter (relayed from the followed node)
  subscribe, // eth_subscribe
  uninstallFilter, // eth_uninstallFilter
  unsubscribe, // eth_unsubscribe
] as const satisfies readonly MethodDefinition<EthContext>[];
