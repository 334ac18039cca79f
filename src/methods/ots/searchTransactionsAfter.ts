import { Address } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { Uint16Param, Uint64Param } from './_shared/params.js';
import { type OtsSearchResult, searchTransactions } from './_shared/search.js';

/**
 * `ots_searchTransactionsAfter(address, block, pageSize)`: the address's transactions in blocks
 * above `block` (0: from the genesis), the page newest first, with receipts, from the address
 * history. Pages as erigon's (see ots_searchTransactionsBefore). docs/methods.md#otterscan
 */
export const otsSearchTransactionsAfter = defineMethod({
  name: 'ots_searchTransactionsAfter',
  raises: HISTORY,
  params: [Address, Uint64Param, Uint16Param],
  handler: (ctx: EthContext, [address, block, pageSize], req): Promise<OtsSearchResult> => searchTransactions(ctx, 'after', address, block, pageSize, req),
});
