import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { rawTransactionByHash } from './_shared/rawTransaction.js';

/**
 * `eth_getRawTransactionByHash(hash)`: a mined transaction's signed encoding (EIP-2718 for typed
 * ones), as geth's `GetRawTransactionByHash`, also of a transaction the followed node holds
 * pending (`_shared/rawTransaction.ts`); `null` for an unknown hash.
 */
export const getRawTransactionByHash = defineMethod({
  name: 'eth_getRawTransactionByHash',
  raises: HISTORY,
  params: [Hash],
  handler: (ctx: EthContext, [hash]) => rawTransactionByHash(ctx, hash),
});
