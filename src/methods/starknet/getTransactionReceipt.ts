import { defineMethod } from '../../rpc/method.js';
import { TransactionNotFoundError } from '../../starknet/errors.js';
import { feltHex } from '../../starknet/stateReader.js';
import { STARKNET_READ } from '../raises.js';
import { finalityOf, receiptOf } from './_shared/blockBody.js';
import { Felt } from './_shared/schemas.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_getTransactionReceipt(transaction_hash)`: TXN_RECEIPT_WITH_BLOCK_INFO, the receipt as
 * its block's source gave it (its `finality_status` the block's) with `block_hash` and
 * `block_number`. Errors: 29 TXN_HASH_NOT_FOUND.
 */
export const getTransactionReceipt = defineMethod({
  name: 'starknet_getTransactionReceipt',
  raises: STARKNET_READ,
  params: [Felt],
  names: ['transaction_hash'],
  handler: async (ctx: StarknetContext, [hash]) => {
    const found = await ctx.store.transactionByHash(hash);
    const block = found && (await ctx.store.block(found.block));
    if (found === undefined || block === undefined) throw new TransactionNotFoundError(feltHex(hash));
    return { ...receiptOf(found.tx, await finalityOf(ctx.store, found.block)), block_hash: block.hash, block_number: block.number };
  },
});
