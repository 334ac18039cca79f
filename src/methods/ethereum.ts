import { createMethodTable, type MethodTable } from '../rpc/method.js';
import { blockMethods } from './blocks.js';
import { callMethods } from './callMethods.js';
import type { EthContext } from './context.js';
import { coreMethods } from './coreMethods.js';
import { debugMethods } from './debugMethods.js';
import { toRpcError } from './errors.js';
import { stateMethods } from './stateMethods.js';
import { subscriptionMethods } from './subscriptionMethods.js';
import { traceMethods } from './traceMethods.js';

/**
 * Every method an Ethereum network serves; anything else is -32601. Each group lists its methods
 * sorted by wire name:
 * - core: eth_blockNumber, eth_chainId, net_version, web3_clientVersion
 * - state: eth_getAccountInfo, eth_getBalance, eth_getCode, eth_getProof, eth_getStorageAt, eth_getTransactionCount
 * - blocks: blocks, transactions, receipts, logs, uncles, fees, net_*, and the read-only refusals
 * - call: eth_call, eth_estimateGas
 * - trace: trace_block, trace_filter, trace_transaction
 * - debug: debug_getRawBlock, debug_getRawHeader, debug_getRawReceipts, debug_getRawTransaction
 * - subscriptions and filters: eth_subscribe, eth_unsubscribe (WebSocket), eth_newFilter,
 *   eth_newBlockFilter, eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs,
 *   eth_uninstallFilter
 * Domain errors the handlers' layers throw become wire errors through `toRpcError`.
 */
export const ethereumMethods: MethodTable<EthContext> = createMethodTable<EthContext>(
  [...coreMethods, ...stateMethods, ...blockMethods, ...callMethods, ...traceMethods, ...debugMethods, ...subscriptionMethods],
  toRpcError,
);
