import type { Block } from '@ethereumjs/block';
import type { BlockId } from '../../codec/blockId.js';
import { ServerError } from '../../rpc/errors.js';
import type { EthContext, EthRequest } from '../context.js';
import { resolveBlock } from '../eth/_shared/resolveBlock.js';

/**
 * The block a `debug_getRaw*` block parameter names: resolved as the state methods resolve it
 * (a number, a tag, a hash or an EIP-1898 object; geth's -32000 texts for an unknown block), then
 * read whole.
 */
export async function rawTarget(ctx: EthContext, id: BlockId | undefined, req?: EthRequest): Promise<Block> {
  const header = await resolveBlock(ctx, id, req);
  const block = await ctx.chain.store.blockByHash(header.hash());
  if (!block) throw new ServerError('block not found');
  return block;
}
