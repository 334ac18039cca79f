import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';

/** `eth_accounts`: always `[]`; the node holds no keys (as Infura). */
export const accounts = defineMethod({
  name: 'eth_accounts',
  params: [],
  handler: (_ctx: EthContext) => [],
});
