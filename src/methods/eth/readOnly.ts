import { MethodNotSupportedError } from '../../rpc/errors.js';
import type { MethodDefinition } from '../../rpc/method.js';
import type { EthContext } from '../context.js';

/**
 * A method that exists on Ethereum but that a node holding no keys cannot honour. It refuses with
 * -32004 whatever its params (they are not even decoded): a client learns the node signs nothing
 * rather than that its arguments were wrong. Infura answers the signing methods with -32601 (it
 * holds no keys); -32004 "method not supported" (execution-apis error groups) says more precisely
 * that the method is known but refused here. Signed transactions are sent with
 * eth_sendRawTransaction (`sendRawTransaction.ts`), relayed to the followed node.
 */
function readOnly(name: string): MethodDefinition<EthContext> {
  return {
    name,
    async call(): Promise<never> {
      throw new MethodNotSupportedError(`${name} is not supported: this node is read-only`);
    },
  };
}

/** `eth_sendTransaction`: refused (no keys, no pool). */
export const sendTransaction = readOnly('eth_sendTransaction');
/** `eth_sign`: refused (no keys). */
export const sign = readOnly('eth_sign');
/** `eth_signTransaction`: refused (no keys). */
export const signTransaction = readOnly('eth_signTransaction');
/** `eth_signTypedData`: refused (no keys). */
export const signTypedData = readOnly('eth_signTypedData');
/** `eth_signTypedData_v3`: refused (no keys). */
export const signTypedDataV3 = readOnly('eth_signTypedData_v3');
/** `eth_signTypedData_v4`: refused (no keys). */
export const signTypedDataV4 = readOnly('eth_signTypedData_v4');

/** Every refusal, sorted by wire name. */
export const readOnlyMethods: readonly MethodDefinition<EthContext>[] = [
  sendTransaction,
  sign,
  signTransaction,
  signTypedData,
  signTypedDataV3,
  signTypedDataV4,
];
