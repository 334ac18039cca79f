import { MethodNotSupportedError } from '../../../rpc/errors.js';
import type { MethodDefinition } from '../../../rpc/method.js';
import type { EthContext } from '../../context.js';

/**
 * A method that exists on Ethereum but that a node holding no keys cannot honour. It refuses with
 * -32004 whatever its params (they are not even decoded): a client learns the node signs nothing
 * rather than that its arguments were wrong. Infura answers the signing methods with -32601 (it
 * holds no keys); -32004 "method not supported" (execution-apis error groups) says more precisely
 * that the method is known but refused here. Signed transactions are sent with
 * eth_sendRawTransaction (`sendRawTransaction.ts`), relayed to the followed node.
 */
export function keylessRefusal(name: string): MethodDefinition<EthContext> {
  return {
    name,
    async call(): Promise<never> {
      throw new MethodNotSupportedError(`${name} is not supported: this node is read-only`);
    },
  };
}
