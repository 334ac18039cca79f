import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';

/** The Otterscan API level served: 8, erigon's `API_LEVEL` and the least Otterscan 2.x accepts. */
export const OTS_API_LEVEL = 8;

/**
 * `ots_getApiLevel()`: the Otterscan API level, which Otterscan checks when it connects.
 * docs/methods.md#otterscan
 */
export const otsGetApiLevel = defineMethod({
  name: 'ots_getApiLevel',
  raises: NONE,
  params: [],
  handler: (_ctx: EthContext): number => OTS_API_LEVEL,
});
