import { z } from 'zod';
import { quoteValue } from '../../../codec/quote.js';
import { FeltError, feltToBytes } from '../../../starknet/felt.js';

/** Parameter schemas the Starknet methods share: FELT, an address or list of them, BLOCK_ID, a transaction index. */

/** A FELT, decoded to its 32-byte value (leading zeros and case do not matter). */
export const Felt = z.string().transform((s, ctx) => {
  try {
    return feltToBytes(s);
  } catch (err) {
    if (!(err instanceof FeltError)) throw err;
    ctx.addIssue({ code: 'custom', message: err.message });
    return z.NEVER;
  }
});

/**
 * `address`: one FELT, or (spec v0.10.1+) a list of FELTs. Written as one schema, not a zod
 * union, so that a bad felt reports its own message rather than "Invalid input".
 */
export const Addresses = z.unknown().transform((v, ctx): Uint8Array[] => {
  const items = Array.isArray(v) ? v : [v];
  const out: Uint8Array[] = [];
  items.forEach((item, i) => {
    const r = Felt.safeParse(item);
    if (r.success) out.push(r.data);
    else ctx.addIssue({ code: 'custom', message: r.error.issues[0]?.message ?? 'invalid felt', path: Array.isArray(v) ? [i] : [] });
  });
  return out;
});

/** A decoded block id: a number, a 32-byte hash or one of the allowed tags. */
export type BlockIdOf<T extends string> = { number: number } | { hash: Uint8Array } | { tag: T };

/**
 * A block id schema: `{"block_hash": FELT}`, `{"block_number": n}` (a JSON integer ≥ 0) or one of
 * `tags` (BLOCK_ID of starknet_getEvents, SUBSCRIPTION_BLOCK_ID of the subscriptions, which differ
 * in their tags only).
 */
export function blockIdSchema<T extends string>(tags: readonly T[]) {
  const wanted = tags.length === 1 ? tags[0] : `one of ${tags.join(', ')}`;
  const lastly = tags.length === 1 ? JSON.stringify(tags[0]) : 'a block tag';
  return z.unknown().transform((v, ctx): BlockIdOf<T> => {
    const fail = (message: string) => {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    };
    if (typeof v === 'string') return (tags as readonly string[]).includes(v) ? { tag: v as T } : fail(`unknown block tag ${quoteValue(v)}, want ${wanted}`);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const fields = Object.keys(v);
      const o = v as Record<string, unknown>;
      if (fields.length === 1 && fields[0] === 'block_hash') {
        const r = Felt.safeParse(o.block_hash);
        return r.success ? { hash: r.data } : fail(`block_hash: ${r.error.issues[0]?.message}`);
      }
      if (fields.length === 1 && fields[0] === 'block_number') {
        const n = o.block_number;
        return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? { number: n } : fail('block_number must be an integer ≥ 0');
      }
    }
    return fail(`invalid block id: want {"block_hash": felt}, {"block_number": integer} or ${lastly}`);
  });
}

/**
 * BLOCK_ID of the read methods: `{"block_hash": FELT}`, `{"block_number": n}` or a tag. The tags
 * of every spec version are taken: `latest` and `pending` (≤ 0.8), `l1_accepted` and
 * `pre_confirmed` (0.9+); `pending` and `pre_confirmed` name the same (empty) block.
 */
export const BlockId = blockIdSchema(['latest', 'l1_accepted', 'pending', 'pre_confirmed'] as const);

/** A transaction's index in its block: a JSON integer ≥ 0. */
export const TxIndex = z.number({ error: 'index must be an integer ≥ 0' }).refine((n) => Number.isSafeInteger(n) && n >= 0, 'index must be an integer ≥ 0');
