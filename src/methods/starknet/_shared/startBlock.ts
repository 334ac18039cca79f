import { StarknetBlockNotFoundError, StarknetTooManyBlocksBackError } from '../../../rpc/errors.js';
import type { StarknetContext } from '../context.js';
import { type BlockIdOf, blockIdSchema } from './schemas.js';

/**
 * Where a Starknet subscription starts: its `block_id` (SUBSCRIPTION_BLOCK_ID of the WebSocket
 * spec v0.8: a block hash, a block number, or the tag `latest`; `pending` is not one) resolved
 * to a block number, with the spec's checks.
 */

/** A decoded SUBSCRIPTION_BLOCK_ID. */
export type SubscriptionBlockRef = BlockIdOf<'latest'>;

/** SUBSCRIPTION_BLOCK_ID, as getEvents' BLOCK_ID without `pending` (nor the later tags). */
export const SubscriptionBlockId = blockIdSchema(['latest'] as const);

/**
 * The number of the block a subscription starts from: the head for `latest` or none (0 while
 * there is no block: the first one will be sent). A block that is not stored is 24 BLOCK_NOT_FOUND;
 * one more than `maxBlocksBack` blocks below the head (counting both) is 68 TOO_MANY_BLOCKS_BACK,
 * as pathfinder counts.
 */
export async function startBlock(ctx: StarknetContext, ref: SubscriptionBlockRef | undefined): Promise<number> {
  const latest = await ctx.store.latestNumber();
  if (ref === undefined || 'tag' in ref) return latest ?? 0;
  const n = 'number' in ref ? ((await ctx.store.block(ref.number)) ? ref.number : undefined) : await ctx.store.blockNumberByHash(ref.hash);
  if (n === undefined || latest === undefined) throw new StarknetBlockNotFoundError();
  if (latest - n + 1 > ctx.maxBlocksBack) throw new StarknetTooManyBlocksBackError(ctx.maxBlocksBack);
  return n;
}
