import type { MethodDefinition } from '../rpc/method.js';
import type { EthContext } from './context.js';
import { accounts } from './eth/accounts.js';
import { blobBaseFee } from './eth/blobBaseFee.js';
import { feeHistory } from './eth/feeHistory.js';
import { gasPrice } from './eth/gasPrice.js';
import { getBlockByHash } from './eth/getBlockByHash.js';
import { getBlockByNumber } from './eth/getBlockByNumber.js';
import { getBlockReceipts } from './eth/getBlockReceipts.js';
import { getBlockTransactionCountByHash } from './eth/getBlockTransactionCountByHash.js';
import { getBlockTransactionCountByNumber } from './eth/getBlockTransactionCountByNumber.js';
import { getLogs } from './eth/getLogs.js';
import { getTransactionByBlockHashAndIndex } from './eth/getTransactionByBlockHashAndIndex.js';
import { getTransactionByBlockNumberAndIndex } from './eth/getTransactionByBlockNumberAndIndex.js';
import { getTransactionByHash } from './eth/getTransactionByHash.js';
import { getTransactionReceipt } from './eth/getTransactionReceipt.js';
import { getUncleByBlockHashAndIndex } from './eth/getUncleByBlockHashAndIndex.js';
import { getUncleByBlockNumberAndIndex } from './eth/getUncleByBlockNumberAndIndex.js';
import { getUncleCountByBlockHash } from './eth/getUncleCountByBlockHash.js';
import { getUncleCountByBlockNumber } from './eth/getUncleCountByBlockNumber.js';
import { maxPriorityFeePerGas } from './eth/maxPriorityFeePerGas.js';
import { readOnlyMethods } from './eth/readOnly.js';
import { syncing } from './eth/syncing.js';
import { listening } from './net/listening.js';
import { peerCount } from './net/peerCount.js';

/**
 * Block, transaction, receipt, log and fee methods, node-status answers and the read-only
 * refusals, sorted by wire name; merged into the Ethereum method table.
 */
export const blockMethods: readonly MethodDefinition<EthContext>[] = [
  accounts, // eth_accounts
  blobBaseFee, // eth_blobBaseFee
  feeHistory, // eth_feeHistory
  gasPrice, // eth_gasPrice
  getBlockByHash, // eth_getBlockByHash
  getBlockByNumber, // eth_getBlockByNumber
  getBlockReceipts, // eth_getBlockReceipts
  getBlockTransactionCountByHash, // eth_getBlockTransactionCountByHash
  getBlockTransactionCountByNumber, // eth_getBlockTransactionCountByNumber
  getLogs, // eth_getLogs
  getTransactionByBlockHashAndIndex, // eth_getTransactionByBlockHashAndIndex
  getTransactionByBlockNumberAndIndex, // eth_getTransactionByBlockNumberAndIndex
  getTransactionByHash, // eth_getTransactionByHash
  getTransactionReceipt, // eth_getTransactionReceipt
  getUncleByBlockHashAndIndex, // eth_getUncleByBlockHashAndIndex
  getUncleByBlockNumberAndIndex, // eth_getUncleByBlockNumberAndIndex
  getUncleCountByBlockHash, // eth_getUncleCountByBlockHash
  getUncleCountByBlockNumber, // eth_getUncleCountByBlockNumber
  maxPriorityFeePerGas, // eth_maxPriorityFeePerGas
  ...readOnlyMethods, // eth_sendRawTransaction, eth_sendTransaction, eth_sign* (refused)
  syncing, // eth_syncing
  listening, // net_listening
  peerCount, // net_peerCount
];
