import { type MethodTable, createMethodTable } from '../rpc/method.js';
import type { EthContext } from './context.js';
import { callMethods } from './callMethods.js';
import { blockNumber } from './eth/blockNumber.js';
import { chainId } from './eth/chainId.js';
import { getBalance } from './eth/getBalance.js';
import { getCode } from './eth/getCode.js';
import { getProof } from './eth/getProof.js';
import { getStorageAt } from './eth/getStorageAt.js';
import { getTransactionCount } from './eth/getTransactionCount.js';
import { version } from './net/version.js';
import { traceMethods } from './traceMethods.js';
import { clientVersion } from './web3/clientVersion.js';

/** Every method an Ethereum network serves, sorted by wire name. Anything else is -32601. */
export const ethereumMethods: MethodTable<EthContext> = createMethodTable<EthContext>([
  blockNumber, // eth_blockNumber
  ...callMethods, // eth_call, eth_estimateGas
  chainId, // eth_chainId
  getBalance, // eth_getBalance
  getCode, // eth_getCode
  getProof, // eth_getProof
  getStorageAt, // eth_getStorageAt
  getTransactionCount, // eth_getTransactionCount
  version, // net_version
  ...traceMethods, // trace_block, trace_filter, trace_transaction
  clientVersion, // web3_clientVersion
]);
