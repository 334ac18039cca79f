import type { MethodDefinition } from '../rpc/method.js';
import type { EthContext } from './context.js';
import { call } from './eth/call.js';
import { createAccessList } from './eth/createAccessList.js';
import { estimateGas } from './eth/estimateGas.js';
import { simulateV1 } from './eth/simulateV1.js';

/** The execution methods, sorted by wire name; merged into the Ethereum method table. */
export const callMethods = [
  call, // eth_call
  createAccessList, // eth_createAccessList
  estimateGas, // eth_estimateGas
  simulateV1, // eth_simulateV1
] as const satisfies readonly MethodDefinition<EthContext>[];
