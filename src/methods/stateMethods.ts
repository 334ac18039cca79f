import type { MethodDefinition } from '../rpc/method.js';
import type { EthContext } from './context.js';
import { getAccount } from './eth/getAccount.js';
import { getAccountInfo } from './eth/getAccountInfo.js';
import { getBalance } from './eth/getBalance.js';
import { getCode } from './eth/getCode.js';
import { getProof } from './eth/getProof.js';
import { getStorageAt } from './eth/getStorageAt.js';
import { getStorageValues } from './eth/getStorageValues.js';
import { getTransactionCount } from './eth/getTransactionCount.js';

/** Archive state at any block, sorted by wire name. */
export const stateMethods = [
  getAccount, // eth_getAccount
  getAccountInfo, // eth_getAccountInfo
  getBalance, // eth_getBalance
  getCode, // eth_getCode
  getProof, // eth_getProof
  getStorageAt, // eth_getStorageAt
  getStorageValues, // eth_getStorageValues
  getTransactionCount, // eth_getTransactionCount
] as const satisfies readonly MethodDefinition<EthContext>[];
