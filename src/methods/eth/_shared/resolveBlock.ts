import type { BlockHeader } from '@ethereumjs/block';
import { equalsBytes } from '@ethereumjs/util';
import { checkArchiveStart } from '../../../chain/archiveStart.js';
import type { BlockId } from '../../../codec/blockId.js';
import { ServerError } from '../../../rpc/errors.js';
import type { EthContext, EthRequest } from '../../context.js';
import { headOf } from './head.js';

/**
 * The block a block parameter names, as geth resolves it for state methods
 * (`eth/api_backend.go` StateAndHeaderByNumberOrHash) with the same -32000 errors.
 *
 * Tags: an imported chain is final and has no pending block or consensus client, so `latest`,
 * `pending`, `safe` and `finalized` all mean the head (geth without a miner serves `pending` from
 * the head's state; anvil does the same for `safe`/`finalized`); `earliest` is the genesis.
 */
export async function resolveBlock(ctx: EthContext, id: BlockId | undefined, req?: EthRequest): Promise<BlockHeader> {
  const store = ctx.chain.store;
  const blockId = id ?? { kind: 'tag', tag: 'latest' };
  if (blockId.kind === 'hash') {
    const header = await store.headerByHash(blockId.hash);
    if (!header) throw new ServerError('header for hash not found');
    if (blockId.requireCanonical) {
      const canonical = await store.canonicalHash(header.number);
      if (!canonical || !equalsBytes(canonical, blockId.hash)) throw new ServerError('hash is not currently canonical');
    }
    return header;
  }
  // The tags other than `earliest` all name the head (see blockNumberOf), read on most requests.
  let header: BlockHeader | undefined;
  if (blockId.kind === 'tag' && blockId.tag !== 'earliest') {
    // The request's head snapshot when there is one; else the store's cached head header.
    const head = req ? await headOf(ctx, req) : undefined;
    header = head ? await store.headerOfHead(head) : await store.headHeader();
  } else {
    if (blockId.kind === 'number') checkArchiveStart(ctx.chain.start, blockId.number, 'state');
    header = await store.headerByNumber(await blockNumberOf(ctx, blockId, req));
  }
  if (!header) throw new ServerError('header not found');
  return header;
}

/**
 * The number a tag or number names (may be beyond the head: callers decide). In an archive that
 * starts at block N, `earliest` is N and a number below N is history it does not keep.
 */
export async function blockNumberOf(ctx: EthContext, id: Exclude<BlockId, { kind: 'hash' }>, req?: EthRequest): Promise<bigint> {
  if (id.kind === 'number') {
    checkArchiveStart(ctx.chain.start, id.number, 'history');
    return id.number;
  }
  if (id.tag === 'earliest') return ctx.chain.start?.number ?? 0n;
  const head = await headOf(ctx, req);
  return head?.number ?? 0n;
}
