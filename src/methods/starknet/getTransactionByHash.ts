import { defineMethod } from '../../rpc/method.js';
import { TransactionNotFoundError } from '../../starknet/errors.js';
import { feltHex } from '../../starknet/stateReader.js';
import { STARKNET_READ } from '../raises.js';
import { transactionWithHash } from './_shared/blockBody.js';
import { Felt } from './_shared/schemas.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_getTransactionByHash(transaction_hash)`: TXN_WITH_HASH, the transaction as its block's
 * source gave it. Errors: 29 TXN_HASH_NOT_FOUND (a transaction of no stored block).
 */
export const getTransactionByHash = defineMethod({
  name: 'starknet_getTransactionByHash',
  raises: STARKNET_READ,
  params: [Felt],
  names: ['transaction_hash'],
  handler: async (ctx: StarknetContext, [hash]) => {
    const found = await ctx.store.transactionByHash(hash);
    if (found === undefined) throw new TransactionNotFoundError(feltHex(hash));
    return transactionWithHash(found.tx);
  },
});
