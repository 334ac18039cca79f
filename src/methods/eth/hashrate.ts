import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';

/** `eth_hashrate`: `0x0`, as a node that does not mine answers it (see `mining.ts`). */
export const hashrate = defineMethod({ name: 'eth_hashrate', raises: NONE, params: [], handler: (_ctx: EthContext) => '0x0' });
