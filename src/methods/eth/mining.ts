import { z } from 'zod';
import { ServerError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';

/**
 * The mining namespace of a node that does not mine, as geth answered it before it dropped these
 * methods (1.13, post-merge: ethash's API behind the beacon engine with no remote sealer): nothing
 * is mined, there is no work to hand out and no etherbase. Old clients and dashboards still ask.
 */

/** `eth_mining`: `false`. */
export const mining = defineMethod({ name: 'eth_mining', params: [], handler: (_ctx: EthContext) => false });

/** `eth_hashrate`: `0x0`. */
export const hashrate = defineMethod({ name: 'eth_hashrate', params: [], handler: (_ctx: EthContext) => '0x0' });

/** `eth_coinbase`: -32000 `etherbase must be explicitly specified` (geth's answer with no etherbase set). */
export const coinbase = defineMethod({
  name: 'eth_coinbase',
  params: [],
  handler: (_ctx: EthContext): never => {
    throw new ServerError('etherbase must be explicitly specified');
  },
});

/** `eth_getWork`: -32000 `not supported` (geth's ethash API without a remote sealer). */
export const getWork = defineMethod({
  name: 'eth_getWork',
  params: [],
  handler: (_ctx: EthContext): never => {
    throw new ServerError('not supported');
  },
});

/** `eth_submitWork(nonce, powHash, mixDigest)`: `false`, nothing is being sealed (geth's ethash API without a remote sealer). */
export const submitWork = defineMethod({
  name: 'eth_submitWork',
  params: [z.unknown(), z.unknown(), z.unknown()],
  handler: (_ctx: EthContext) => false,
});

/**
 * `eth_protocolVersion`: `0x44`, the eth wire protocol version (eth/68) the peers of a current
 * node speak, as reth and erigon answer it (geth removed the method).
 */
export const protocolVersion = defineMethod({ name: 'eth_protocolVersion', params: [], handler: (_ctx: EthContext) => '0x44' });
