import { z } from 'zod';
import { quoteValue } from '../../../codec/quote.js';
import { StarknetBlockNotFoundError, StarknetTooManyBlocksBackError } from '../../../rpc/errors.js';
import type { StarknetContext } from '../context.js';
import { Felt } from '../getEvents.js';

/**
 * Where a Starknet subscription starts: its `block_id` (SUBSCRIPTION_BLOCK_ID of the WebSocket
 * spec v0.8: a block hash, a block number, or the tag `latest`; `pending` is not one) resolved
 * to a block number, with the spec's checks.
 */

/** A decoded SUBSCRIPTION_BLOCK_ID. */
export type SubscriptionBlockRef = { number: number } | { hash: Uint8Array } | { tag: 'latest' };

/** SUBSCRIPTION_BLOCK_ID, as getEvents' BLOCK_ID without `pending` (nor the later tags). */
export const SubscriptionBlockId = z.unknown().transform((v, ctx): SubscriptionBlockRef => {
  const fail = (message: string) => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  if (typeof v === 'string') return v === 'latest' ? { tag: 'latest' } : fail(`unknown block tag ${quoteValue(v)}, want latest`);
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const fields = Object.keys(v);
    const o = v as Record<string, unknown>;
    if (fields.length === 1 && fields[0] === 'block_hash') {
      const r = Felt.safeParse(o.block_hash);
      return r.success ? { hash: r.data } : fail(`block_hash: ${r.error.issues[0]?.message}`);
    }
    if (fields.length === 1 && fields[0] === 'block_number') {
      const n = o.block_number;
      return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? { number: n } : fail('block_number must be an integer ≥ 0');
    }
  }
  return fail('invalid block id: want {"block_hash": felt}, {"block_number": integer} or "latest"');
});

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
