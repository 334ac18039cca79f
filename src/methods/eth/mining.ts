import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';

/**
 * `eth_mining`: `false`: nothing is mined here. Part of the mining namespace of a node that does
 * not mine, as geth answered it before it dropped these methods (1.13, post-merge); old clients
 * and dashboards still ask.
 */
export const mining = defineMethod({ name: 'eth_mining', raises: NONE, params: [], handler: (_ctx: EthContext) => false });
