import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bigIntToQuantity, bytesToData, quantityToBigInt } from '../../codec/hex.js';
import { Address } from '../../codec/schemas.js';
import { ServerError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { STATE } from '../raises.js';
import { resolveBlock } from './_shared/resolveBlock.js';
import { forwardToUpstream } from './_shared/upstreamPool.js';

/**
 * `eth_getTransactionCount(address, block?)`: the account nonce at a block (`0x0` if missing).
 *
 * `pending` is the nonce a wallet signs its next transaction with. When the network follows a
 * node, that node's pool knows the sender's transactions not yet mined: the answer is the larger
 * of the nonce at this node's head and the followed node's `pending` count (which is at least its
 * own latest nonce, so a block this node has not executed yet counts too). Without an upstream,
 * `pending` is the head, as every other tag names it.
 */
export const getTransactionCount = defineMethod({
  name: 'eth_getTransactionCount',
  raises: STATE,
  params: [Address, BlockNumberOrHash],
  required: 1,
  handler: async (ctx: EthContext, [address, block], req) => {
    const pending = ctx.pool !== undefined && block?.kind === 'tag' && block.tag === 'pending';
    const theirs = pending ? forwardToUpstream(ctx.pool!, 'eth_getTransactionCount', [bytesToData(address), 'pending']) : undefined;
    theirs?.catch(() => undefined); // awaited below, after the local read
    const header = await resolveBlock(ctx, block, req);
    const ours = (await ctx.state.account(header.stateRoot, address))?.nonce ?? 0n;
    if (theirs === undefined) return bigIntToQuantity(ours);
    const answer = await theirs;
    let upstream: bigint;
    try {
      upstream = quantityToBigInt(answer as string, 64);
    } catch {
      throw new ServerError('the followed node answered eth_getTransactionCount with something that is not a quantity');
    }
    return bigIntToQuantity(upstream > ours ? upstream : ours);
  },
});
