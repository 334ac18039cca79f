import type { Block } from '@ethereumjs/block';
import { equalsBytes } from '@ethereumjs/util';
import type { BlockId } from '../../../codec/blockId.js';
import { ServerError } from '../../../rpc/errors.js';
import type { EthContext, EthRequest } from '../../context.js';
import { blockNumberOf } from './resolveBlock.js';

/**
 * The block a block parameter names, or undefined where geth answers `null`: a number beyond the
 * head or an unknown hash (go-ethereum `eth/api_backend.go` BlockByNumberOrHash). Tags resolve as
 * for the state methods (see {@link blockNumberOf}). The one error is EIP-1898's
 * `requireCanonical` on a known block off the canonical chain.
 */
export async function findBlock(ctx: EthContext, id: BlockId, req?: EthRequest): Promise<Block | undefined> {
  const store = ctx.chain.store;
  if (id.kind !== 'hash') return store.blockByNumber(await blockNumberOf(ctx, id, req));
  const block = await store.blockByHash(id.hash);
  if (block && id.requireCanonical) {
    const canonical = await store.canonicalHash(block.header.number);
    if (!canonical || !equalsBytes(canonical, id.hash)) throw new ServerError('hash is not currently canonical');
  }
  return block;
}
