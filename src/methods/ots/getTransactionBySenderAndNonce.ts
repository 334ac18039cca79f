import { bytesToData } from '../../codec/hex.js';
import { Address } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import { txBySenderAndNonce } from '../../tracing/addressHistory.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { historyHead } from './_shared/history.js';
import { Uint64Param } from './_shared/params.js';

/**
 * `ots_getTransactionBySenderAndNonce(sender, nonce)`: the hash of the transaction that sender sent
 * with that nonce, or `null` (erigon answers from its account history; here one key of the
 * address history). The nonce is a JSON number, as erigon's `uint64`.
 */
export const otsGetTransactionBySenderAndNonce = defineMethod({
  name: 'ots_getTransactionBySenderAndNonce',
  raises: HISTORY,
  params: [Address, Uint64Param],
  handler: async (ctx: EthContext, [sender, nonce], req): Promise<string | null> => {
    const ref = await txBySenderAndNonce(ctx.chain.level, sender, BigInt(nonce), await historyHead(ctx, req));
    if (!ref) return null;
    const hash = await ctx.chain.store.canonicalHash(ref.block);
    const hashes = hash && (await ctx.chain.store.txHashes(hash));
    const txHash = hashes?.[ref.txIndex];
    if (!txHash) throw new Error(`database corrupt: address history names transaction ${ref.txIndex} of block ${ref.block}`);
    return bytesToData(txHash);
  },
});
