import { bytesToData } from '../../../codec/hex.js';
import type { EthContext } from '../../context.js';

/**
 * A mined transaction's signed encoding (EIP-2718 for typed ones), or null for an unknown hash:
 * what eth_getRawTransactionByHash and debug_getRawTransaction both answer.
 */
export async function rawTransactionByHash(ctx: EthContext, hash: Uint8Array): Promise<string | null> {
  const at = await ctx.chain.store.txLocation(hash);
  if (!at) return null;
  const block = await ctx.chain.store.blockByHash(at.blockHash);
  return block ? bytesToData(block.transactions[at.index].serialize()) : null;
}
