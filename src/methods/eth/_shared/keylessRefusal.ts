import { MethodNotSupportedError } from '../../../rpc/errors.js';
import type { MethodDefinition } from '../../../rpc/method.js';
import type { EthContext } from '../../context.js';
import { NONE } from '../../raises.js';
import { forwardToUpstream } from './upstreamPool.js';

/**
 * A method that needs a key: this node holds none. Following a node that holds unlocked accounts
 * (anvil, Hardhat, geth --dev) with `follow.relayAccounts` on, the call goes to that node with its
 * params as given, and its answer or error comes back unchanged (what `cast send --unlocked` and
 * ethers' `provider.getSigner()` use against a development node). Otherwise it refuses with
 * -32004 whatever its params (they are not even decoded): a client learns that the node signs
 * nothing rather than that its arguments were wrong, and what to do instead. Infura answers the
 * signing methods with -32601 (it holds no keys); -32004 "method not supported" (execution-apis
 * error groups) says more precisely that the method is known but refused here.
 */
export function keylessRefusal<const Name extends string>(
  name: Name,
  opts: { onResult?: (ctx: EthContext, result: unknown) => void } = {},
): MethodDefinition<EthContext, Name, readonly unknown[], unknown, never> {
  return {
    name,
    raises: NONE,
    async call(ctx, params): Promise<unknown> {
      if (ctx.pool === undefined) {
        throw new MethodNotSupportedError(
          `${name} is not supported: this node holds no keys and follows no node; sign the transaction yourself and send it with eth_sendRawTransaction`,
        );
      }
      if (ctx.relayed?.accounts !== true) {
        throw new MethodNotSupportedError(
          `${name} is not supported: this node holds no keys and does not relay the followed node's accounts (follow.relayAccounts); send it to that node, or sign it and send it here with eth_sendRawTransaction`,
        );
      }
      const result = await forwardToUpstream(ctx.pool, name, Array.isArray(params) ? params : params === undefined ? [] : [params]);
      opts.onResult?.(ctx, result);
      return result;
    },
  };
}
