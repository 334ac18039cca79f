import { bytesToData } from '../../../codec/hex.js';
import type { EthContext } from '../../context.js';
import { poolTransaction } from './poolTransaction.js';

/**
 * A transaction's signed encoding (EIP-2718 for typed ones), or null for an unknown hash: what
 * eth_getRawTransactionByHash and debug_getRawTransaction both answer. A mined transaction comes
 * from its block; one this node has in no block, from the followed node once its bytes hash to
 * `hash` (geth answers both from its pool too).
 */
export async function rawTransactionByHash(ctx: EthContext, hash: Uint8Array): Promise<string | null> {
  const at = await ctx.chain.store.txLocation(hash);
  if (at) {
    const block = await ctx.chain.store.blockByHash(at.blockHash);
    return block ? bytesToData(block.transactions[at.index].serialize()) : null;
  }
  const pending = await poolTransaction(ctx, hash);
  return pending ? bytesToData(pending.raw) : null;
}
