import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { rawTransactionByHash } from '../eth/_shared/rawTransaction.js';
import { HISTORY } from '../raises.js';

/**
 * `debug_getRawTransaction(hash)`: a mined transaction's signed encoding (EIP-2718 for typed
 * ones), as geth's `DebugAPI.GetRawTransaction`; `null` for an unknown hash (there is no pool).
 * https://github.com/ethereum/execution-apis (debug namespace)
 */
export const getRawTransaction = defineMethod({
  name: 'debug_getRawTransaction',
  raises: HISTORY,
  params: [Hash],
  handler: (ctx: EthContext, [hash]) => rawTransactionByHash(ctx, hash),
});
