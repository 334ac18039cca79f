import { MethodNotSupportedError } from '../../rpc/errors.js';
import type { MethodDefinition } from '../../rpc/method.js';
import type { EthContext } from '../context.js';

/**
 * A method that exists on Ethereum but that a read-only node cannot honour. It refuses with
 * -32004 whatever its params (they are not even decoded): a client learns the node is read-only
 * rather than that its arguments were wrong.
 *
 * The execution-apis fixtures `eth_sendRawTransaction/*.io` expect the transaction hash: they were
 * recorded against a geth with a transaction pool. We serve an imported, final chain with no pool
 * and no peers, so accepting a transaction would be a lie (it would never be mined); those five
 * cases are expected to fail and are excluded on purpose. Infura answers the signing methods with
 * -32601 (it holds no keys); -32004 "method not supported" (execution-apis error groups) says more
 * precisely that the method is known but refused here.
 */
function readOnly(name: string): MethodDefinition<EthContext> {
  return {
    name,
    async call(): Promise<never> {
      throw new MethodNotSupportedError(`${name} is not supported: this node is read-only`);
    },
  };
}

/** `eth_sendRawTransaction`: refused (no transaction pool). */
export const sendRawTransaction = readOnly('eth_sendRawTransaction');
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
  sendRawTransaction,
  sendTransaction,
  sign,
  signTransaction,
  signTypedData,
  signTypedDataV3,
  signTypedDataV4,
];
