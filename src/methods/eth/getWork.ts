import { ServerError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';

/** `eth_getWork`: -32000 `not supported` (geth's ethash API without a remote sealer: there is no work to hand out). */
export const getWork = defineMethod({
  name: 'eth_getWork',
  raises: NONE,
  params: [],
  handler: (_ctx: EthContext): never => {
    throw new ServerError('not supported');
  },
});
