import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';

/** `eth_syncing`: always `false`; the node serves an imported chain and never syncs from peers. */
export const syncing = defineMethod({
  name: 'eth_syncing',
  raises: NONE,
  params: [],
  handler: (_ctx: EthContext) => false,
});
