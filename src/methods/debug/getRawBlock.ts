import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bytesToData } from '../../codec/hex.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { rawTarget } from './_shared.js';

/**
 * `debug_getRawBlock(block)`: the block's consensus RLP (header, transactions, uncles, and
 * withdrawals from Shanghai), as geth's `DebugAPI.GetRawBlock`; the upstream a follower reads.
 * https://github.com/ethereum/execution-apis (debug namespace)
 */
export const getRawBlock = defineMethod({
  name: 'debug_getRawBlock',
  raises: HISTORY,
  params: [BlockNumberOrHash],
  required: 1,
  handler: async (ctx: EthContext, [block], req) => bytesToData((await rawTarget(ctx, block, req)).serialize()),
});
