import { Address } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { Uint16Param, Uint64Param } from './_shared/params.js';
import { type OtsSearchResult, searchTransactions } from './_shared/search.js';

/**
 * `ots_searchTransactionsBefore(address, block, pageSize)`: the address's transactions in blocks
 * below `block` (0: from the head), newest first, with receipts, from the address history (one
 * seek, then the page: the same cost wherever the page lies). Pages as erigon's: `pageSize` at
 * most `rpc.otsMaxPageSize`, a page ends on a block boundary. docs/methods.md#otterscan
 */
export const otsSearchTransactionsBefore = defineMethod({
  name: 'ots_searchTransactionsBefore',
  raises: HISTORY,
  params: [Address, Uint64Param, Uint16Param],
  handler: (ctx: EthContext, [address, block, pageSize], req): Promise<OtsSearchResult> => searchTransactions(ctx, 'before', address, block, pageSize, req),
});
