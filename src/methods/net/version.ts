import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';

/**
 * `net_version`: the network id as a decimal string. geth takes it from `config.networkId` when
 * a genesis sets one and from the chain id otherwise; so do we.
 */
export const version = defineMethod({
  name: 'net_version',
  raises: NONE,
  params: [],
  handler: (ctx: EthContext) => {
    const networkId = (ctx.chain.genesis.config as { networkId?: unknown }).networkId;
    return typeof networkId === 'number' || typeof networkId === 'string' ? String(networkId) : ctx.chain.common.chainId().toString();
  },
});
