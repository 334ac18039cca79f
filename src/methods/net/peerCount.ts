import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';

/** `net_peerCount`: `0x0`; the node imports chains from files and has no peers. */
export const peerCount = defineMethod({
  name: 'net_peerCount',
  raises: NONE,
  params: [],
  handler: (_ctx: EthContext) => '0x0',
});
