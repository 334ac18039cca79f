import { defineMethod } from '../../rpc/method.js';
import { TransactionNotFoundError } from '../../starknet/errors.js';
import { feltHex } from '../../starknet/stateReader.js';
import { STARKNET_READ } from '../raises.js';
import { finalityOf } from './_shared/blockBody.js';
import { forwardToFollowed, NEEDS } from './_shared/forward.js';
import { Felt } from './_shared/schemas.js';
import type { StarknetContext } from './context.js';

/** TXN_STATUS_RESULT on the wire (spec 0.8: `failure_reason` when reverted or rejected). */
export interface RpcTransactionStatus {
  finality_status: string;
  execution_status?: string;
  failure_reason?: string;
}

/**
 * `starknet_getTransactionStatus(transaction_hash)`: a stored transaction's finality (its block's)
 * and execution status, with the receipt's `revert_reason` as `failure_reason` when it reverted.
 * A transaction of no stored block is asked of the followed upstream, as pathfinder asks its
 * gateway (`crates/rpc/src/method/get_transaction_status.rs`): RECEIVED or REJECTED are relayed,
 * and a transaction the upstream has in a block this node has not followed yet is RECEIVED (so a
 * client waiting for it waits until its receipt is here too). Errors: 29 TXN_HASH_NOT_FOUND,
 * from the store or the upstream.
 */
export const getTransactionStatus = defineMethod({
  name: 'starknet_getTransactionStatus',
  raises: STARKNET_READ,
  params: [Felt],
  names: ['transaction_hash'],
  handler: async (ctx: StarknetContext, [hash]): Promise<RpcTransactionStatus> => {
    const found = await ctx.store.transactionByHash(hash);
    if (found !== undefined) {
      const finality_status = await finalityOf(ctx.store, found.block);
      const execution = found.tx.receipt?.execution_status;
      const execution_status = typeof execution === 'string' ? execution : 'SUCCEEDED';
      const reason = found.tx.receipt?.revert_reason;
      return execution_status === 'REVERTED' && typeof reason === 'string'
        ? { finality_status, execution_status, failure_reason: reason }
        : { finality_status, execution_status };
    }
    if (ctx.upstream === undefined) throw new TransactionNotFoundError(feltHex(hash));
    const status = (await forwardToFollowed(ctx, 'starknet_getTransactionStatus', [feltHex(hash)], NEEDS.mempool)) as RpcTransactionStatus;
    if (status?.finality_status === 'ACCEPTED_ON_L2' || status?.finality_status === 'ACCEPTED_ON_L1') return { finality_status: 'RECEIVED' };
    return status;
  },
});
