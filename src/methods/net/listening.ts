import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';

/** `net_listening`: `true`, as Infura answers: the node is up and answering (it has no p2p side). */
export const listening = defineMethod({
  name: 'net_listening',
  raises: NONE,
  params: [],
  handler: (_ctx: EthContext) => true,
});
