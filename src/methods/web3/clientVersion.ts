import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';

/** `web3_clientVersion`: `tracenode/v<version>/<platform>-<arch>/node<version>`, geth's layout. */
export const clientVersion = defineMethod({
  name: 'web3_clientVersion',
  raises: NONE,
  params: [],
  handler: (ctx: EthContext) => ctx.clientVersion,
});
