import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { receiptsForDeposits } from './_shared/deposits.js';
import { formatBlockTransaction, formatPendingTransaction, type RpcTransaction } from './_shared/formatTransaction.js';
import { poolTransaction } from './_shared/poolTransaction.js';

/**
 * `eth_getTransactionByHash(hash)`: a mined transaction with its block position. A hash this
 * node has in no block is looked up in the followed node (its pool, or a block not executed here
 * yet) and answered as pending — block fields null — once its bytes hash to `hash`
 * (`poolTransaction.ts`); `null` when neither knows it, or when nothing is followed.
 */
export const getTransactionByHash = defineMethod({
  name: 'eth_getTransactionByHash',
  raises: HISTORY,
  params: [Hash],
  handler: async (ctx: EthContext, [hash]) => {
    const mined = await minedTransaction(ctx, hash);
    if (mined !== undefined || ctx.pool === undefined) return mined ?? null;
    const pending = await poolTransaction(ctx, hash);
    if (pending === undefined) return null;
    // Mined and executed here while the upstream answered: the block's view wins.
    return (await minedTransaction(ctx, hash)) ?? formatPendingTransaction(pending.tx);
  },
});

async function minedTransaction(ctx: EthContext, hash: Uint8Array): Promise<RpcTransaction | undefined> {
  const at = await ctx.chain.store.txLocation(hash);
  if (!at) return undefined;
  const block = await ctx.chain.store.blockByHash(at.blockHash);
  if (!block) return undefined;
  return formatBlockTransaction(block, at.index, await receiptsForDeposits(ctx.chain.store, block, at.index)) ?? undefined;
}
