import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';
import { forwardToUpstream } from './_shared/upstreamPool.js';

/**
 * `eth_accounts`: the followed node's unlocked accounts when `follow.relayAccounts` is on (its
 * answer unchanged: anvil's and Hardhat's dev accounts, `[]` from a node that holds none), else
 * `[]`: this node holds no keys (as Infura).
 */
export const accounts = defineMethod({
  name: 'eth_accounts',
  raises: NONE,
  params: [],
  handler: (ctx: EthContext) => (ctx.pool !== undefined && ctx.relayed?.accounts === true ? forwardToUpstream(ctx.pool, 'eth_accounts', []) : []),
});
