import type { Block } from '@ethereumjs/block';
import type { StoredReceipt } from '../../../chain/receipts.js';
import { ServerError } from '../../../rpc/errors.js';
import { historyPage } from '../../../tracing/addressHistory.js';
import type { EthContext, EthRequest } from '../../context.js';
import { formatReceipt, type RpcReceipt } from '../../eth/_shared/formatReceipt.js';
import { formatBlockTransaction, type RpcTransaction } from '../../eth/_shared/formatTransaction.js';
import { historyHead } from './history.js';

/** A search receipt: the receipt with its block's timestamp (a JSON number, as erigon writes `block.Time()`). */
export type OtsSearchReceipt = RpcReceipt & { timestamp: number };

/** ots_searchTransactionsBefore/After's answer (erigon `TransactionsWithReceipts`). */
export interface OtsSearchResult {
  txs: RpcTransaction[];
  receipts: OtsSearchReceipt[];
  firstPage: boolean;
  lastPage: boolean;
}

/**
 * One page of an address's transactions, newest first, from the address history (erigon
 * `otterscan_search_v3.go`):
 *
 * - `before` (ots_searchTransactionsBefore): blocks below `block`, or from the head when `block`
 *   is 0; `firstPage` is `block == 0`, `lastPage` that nothing older is left.
 * - `after` (ots_searchTransactionsAfter): blocks above `block`, or from the genesis when `block`
 *   is 0; `lastPage` is `block == 0`, `firstPage` that nothing newer is left.
 *
 * A page holds `pageSize` transactions, more when the last block has more matches (a block's
 * matches are never split). `pageSize` above `rpc.otsMaxPageSize` is erigon's error. Where this
 * differs from erigon (docs/methods.md#otterscan): `before` with `block` 1 is the empty last page
 * (erigon searches from the head, a bug it keeps from its old index), and `lastPage`/`firstPage`
 * consider transactions only (erigon's also count a beneficiary's block-level entries).
 */
export async function searchTransactions(
  ctx: EthContext,
  direction: 'before' | 'after',
  address: Uint8Array,
  block: number,
  pageSize: number,
  req: EthRequest | undefined,
): Promise<OtsSearchResult> {
  if (pageSize > ctx.limits.otsMaxPageSize) throw new ServerError(`max allowed page size: ${ctx.limits.otsMaxPageSize}`);
  const head = await historyHead(ctx, req);
  const from = block === 0 ? undefined : BigInt(block);
  const page = await historyPage(ctx.chain.level, { address, direction, block: from, head, pageSize });
  const txs: RpcTransaction[] = [];
  const receipts: OtsSearchReceipt[] = [];
  let cached: { number: bigint; block: Block; receipts: StoredReceipt[] | undefined } | undefined;
  for (const ref of page.txs) {
    if (cached?.number !== ref.block) {
      const b = await ctx.chain.store.blockByNumber(ref.block);
      if (!b) throw new Error(`database corrupt: canonical block ${ref.block} missing`);
      cached = { number: ref.block, block: b, receipts: await ctx.chain.store.receipts(b.hash()) };
    }
    const { block: b, receipts: stored } = cached;
    if (!stored || !b.transactions[ref.txIndex]) throw new Error(`database corrupt: address history names transaction ${ref.txIndex} of block ${ref.block}`);
    txs.push(formatBlockTransaction(b, ref.txIndex, stored) as RpcTransaction);
    receipts.push({ ...formatReceipt(b, stored, ref.txIndex), timestamp: Number(b.header.timestamp) });
  }
  const edge = block === 0;
  return direction === 'before' ? { txs, receipts, firstPage: edge, lastPage: !page.more } : { txs, receipts, firstPage: !page.more, lastPage: edge };
}
