import { ServerError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';

/** `eth_coinbase`: -32000 `etherbase must be explicitly specified` (geth's answer with no etherbase set). */
export const coinbase = defineMethod({
  name: 'eth_coinbase',
  raises: NONE,
  params: [],
  handler: (_ctx: EthContext): never => {
    throw new ServerError('etherbase must be explicitly specified');
  },
});
