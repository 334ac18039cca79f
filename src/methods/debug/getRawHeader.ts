import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bytesToData } from '../../codec/hex.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { resolveBlock } from '../eth/_shared/resolveBlock.js';
import { HISTORY } from '../raises.js';

/**
 * `debug_getRawHeader(block)`: the header's consensus RLP, whose keccak is the block hash, as
 * geth's `DebugAPI.GetRawHeader`. https://github.com/ethereum/execution-apis (debug namespace)
 */
export const getRawHeader = defineMethod({
  name: 'debug_getRawHeader',
  raises: HISTORY,
  params: [BlockNumberOrHash],
  required: 1,
  handler: async (ctx: EthContext, [block], req) => bytesToData((await resolveBlock(ctx, block, req)).serialize()),
});
