import type { MethodDefinition } from '../rpc/method.js';
import type { EthContext } from './context.js';
import { getAccountInfo } from './eth/getAccountInfo.js';
import { getBalance } from './eth/getBalance.js';
import { getCode } from './eth/getCode.js';
import { getProof } from './eth/getProof.js';
import { getStorageAt } from './eth/getStorageAt.js';
import { getTransactionCount } from './eth/getTransactionCount.js';

/** Archive state at any block, sorted by wire name. */
export const stateMethods: readonly MethodDefinition<EthContext>[] = [
  getAccountInfo, // eth_getAccountInfo
  getBalance, // eth_getBalance
  getCode, // eth_getCode
  getProof, // eth_getProof
  getStorageAt, // eth_getStorageAt
  getTransactionCount, // eth_getTransactionCount
];
