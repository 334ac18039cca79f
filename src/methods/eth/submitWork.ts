import { z } from 'zod';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';

/** `eth_submitWork(nonce, powHash, mixDigest)`: `false`, nothing is being sealed (geth's ethash API without a remote sealer). */
export const submitWork = defineMethod({
  name: 'eth_submitWork',
  raises: NONE,
  params: [z.unknown(), z.unknown(), z.unknown()],
  handler: (_ctx: EthContext) => false,
});
