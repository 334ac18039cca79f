import { encodeConsensusReceipt } from '../../chain/receipts.js';
import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bytesToData } from '../../codec/hex.js';
import { ServerError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { logsBloom } from '../eth/_shared/bloom.js';
import { HISTORY } from '../raises.js';
import { rawTarget } from './_shared.js';

/**
 * `debug_getRawReceipts(block)`: each receipt of the block in its consensus encoding (EIP-2718:
 * the transaction's type byte, then `rlp([status or post-state root, cumulative gas, bloom,
 * logs])`; a legacy receipt is the RLP alone; an OP-stack deposit's with its nonce and version
 * after the logs), the items of the block's receipts trie, as geth's `DebugAPI.GetRawReceipts`. https://github.com/ethereum/execution-apis (debug namespace)
 */
export const getRawReceipts = defineMethod({
  name: 'debug_getRawReceipts',
  raises: HISTORY,
  params: [BlockNumberOrHash],
  required: 1,
  handler: async (ctx: EthContext, [id], req) => {
    const block = await rawTarget(ctx, id, req);
    const receipts = await ctx.chain.store.receipts(block.hash());
    if (!receipts) throw new ServerError('receipts not found');
    return receipts.map((r, i) => bytesToData(encodeConsensusReceipt(r, block.transactions[i].type, logsBloom(r.logs), 'binary')));
  },
});
