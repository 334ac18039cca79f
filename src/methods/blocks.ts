import type { MethodDefinition } from '../rpc/method.js';
import type { EthContext } from './context.js';
import { accounts } from './eth/accounts.js';
import { blobBaseFee } from './eth/blobBaseFee.js';
import { coinbase } from './eth/coinbase.js';
import { feeHistory } from './eth/feeHistory.js';
import { gasPrice } from './eth/gasPrice.js';
import { getBlockByHash } from './eth/getBlockByHash.js';
import { getBlockByNumber } from './eth/getBlockByNumber.js';
import { getBlockReceipts } from './eth/getBlockReceipts.js';
import { getBlockTransactionCountByHash } from './eth/getBlockTransactionCountByHash.js';
import { getBlockTransactionCountByNumber } from './eth/getBlockTransactionCountByNumber.js';
import { getHeaderByHash } from './eth/getHeaderByHash.js';
import { getHeaderByNumber } from './eth/getHeaderByNumber.js';
import { getLogs } from './eth/getLogs.js';
import { getRawTransactionByBlockHashAndIndex } from './eth/getRawTransactionByBlockHashAndIndex.js';
import { getRawTransactionByBlockNumberAndIndex } from './eth/getRawTransactionByBlockNumberAndIndex.js';
import { getRawTransactionByHash } from './eth/getRawTransactionByHash.js';
import { getTransactionByBlockHashAndIndex } from './eth/getTransactionByBlockHashAndIndex.js';
import { getTransactionByBlockNumberAndIndex } from './eth/getTransactionByBlockNumberAndIndex.js';
import { getTransactionByHash } from './eth/getTransactionByHash.js';
import { getTransactionReceipt } from './eth/getTransactionReceipt.js';
import { getUncleByBlockHashAndIndex } from './eth/getUncleByBlockHashAndIndex.js';
import { getUncleByBlockNumberAndIndex } from './eth/getUncleByBlockNumberAndIndex.js';
import { getUncleCountByBlockHash } from './eth/getUncleCountByBlockHash.js';
import { getUncleCountByBlockNumber } from './eth/getUncleCountByBlockNumber.js';
import { getWork } from './eth/getWork.js';
import { hashrate } from './eth/hashrate.js';
import { maxPriorityFeePerGas } from './eth/maxPriorityFeePerGas.js';
import { mining } from './eth/mining.js';
import { sendRawTransaction } from './eth/sendRawTransaction.js';
import { sendRawTransactionSync } from './eth/sendRawTransactionSync.js';
import { sendTransaction } from './eth/sendTransaction.js';
import { sign } from './eth/sign.js';
import { signTransaction } from './eth/signTransaction.js';
import { signTypedData } from './eth/signTypedData.js';
import { signTypedDataV3 } from './eth/signTypedDataV3.js';
import { signTypedDataV4 } from './eth/signTypedDataV4.js';
import { submitWork } from './eth/submitWork.js';
import { syncing } from './eth/syncing.js';
import { listening } from './net/listening.js';
import { peerCount } from './net/peerCount.js';

/**
 * Block, transaction, receipt, log and fee methods, node-status answers, the sending methods
 * (relayed to the followed node) and the signing refusals, sorted by wire name; merged into the
 * Ethereum method table.
 */
export const blockMethods = [
  accounts, // eth_accounts
  blobBaseFee, // eth_blobBaseFee
  coinbase, // eth_coinbase
  feeHistory, // eth_feeHistory
  gasPrice, // eth_gasPrice
  getBlockByHash, // eth_getBlockByHash
  getBlockByNumber, // eth_getBlockByNumber
  getBlockReceipts, // eth_getBlockReceipts
  getBlockTransactionCountByHash, // eth_getBlockTransactionCountByHash
  getBlockTransactionCountByNumber, // eth_getBlockTransactionCountByNumber
  getHeaderByHash, // eth_getHeaderByHash
  getHeaderByNumber, // eth_getHeaderByNumber
  getLogs, // eth_getLogs
  getRawTransactionByBlockHashAndIndex, // eth_getRawTransactionByBlockHashAndIndex
  getRawTransactionByBlockNumberAndIndex, // eth_getRawTransactionByBlockNumberAndIndex
  getRawTransactionByHash, // eth_getRawTransactionByHash
  getTransactionByBlockHashAndIndex, // eth_getTransactionByBlockHashAndIndex
  getTransactionByBlockNumberAndIndex, // eth_getTransactionByBlockNumberAndIndex
  getTransactionByHash, // eth_getTransactionByHash
  getTransactionReceipt, // eth_getTransactionReceipt
  getUncleByBlockHashAndIndex, // eth_getUncleByBlockHashAndIndex
  getUncleByBlockNumberAndIndex, // eth_getUncleByBlockNumberAndIndex
  getUncleCountByBlockHash, // eth_getUncleCountByBlockHash
  getUncleCountByBlockNumber, // eth_getUncleCountByBlockNumber
  getWork, // eth_getWork
  hashrate, // eth_hashrate
  maxPriorityFeePerGas, // eth_maxPriorityFeePerGas
  mining, // eth_mining
  sendRawTransaction, // eth_sendRawTransaction (relayed to the followed node)
  sendRawTransactionSync, // eth_sendRawTransactionSync (relayed to the followed node)
  sendTransaction, // eth_sendTransaction (refused: no keys)
  sign, // eth_sign (refused: no keys)
  signTransaction, // eth_signTransaction (refused: no keys)
  signTypedData, // eth_signTypedData (refused: no keys)
  signTypedDataV3, // eth_signTypedData_v3 (refused: no keys)
  signTypedDataV4, // eth_signTypedData_v4 (refused: no keys)
  submitWork, // eth_submitWork
  syncing, // eth_syncing
  listening, // net_listening
  peerCount, // net_peerCount
] as const satisfies readonly MethodDefinition<EthContext>[];
