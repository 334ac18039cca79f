import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';

/**
 * `eth_protocolVersion`: `0x44`, the eth wire protocol version (eth/68) the peers of a current
 * node speak, as reth and erigon answer it (geth removed the method).
 */
export const protocolVersion = defineMethod({ name: 'eth_protocolVersion', raises: NONE, params: [], handler: (_ctx: EthContext) => '0x44' });
