import type { CatchUp } from '../../../live/starknet/subscriptionHub.js';
import type { EventConstraints } from '../../../starknet/eventMatcher.js';
import { hex64ToBytes } from '../../../starknet/felt.js';
import { getEvents as queryEvents } from '../../../starknet/getEvents.js';
import type { StarknetContext } from '../context.js';
import { formatBlockHeader } from './blockHeader.js';
import { toRpcEvent } from './emittedEvent.js';

/**
 * What a subscription started from a past block sends before it goes live: the stored blocks
 * from its start to the feed's head, read in batches (a client that stops reading is closed by
 * the backlog limit, and the catch-up stops with it).
 */

/** Most blocks (headers) or events a catch-up reads at once. */
const CATCH_UP_BATCH = 64;

/** Each stored block's BLOCK_HEADER from block `from`, in order. */
export function headsCatchUp(ctx: StarknetContext, from: number): CatchUp {
  return async (to, send) => {
    for (let start = from; start <= to; start += CATCH_UP_BATCH) {
      const numbers = Array.from({ length: Math.min(CATCH_UP_BATCH, to - start + 1) }, (_, i) => start + i);
      for (const block of await ctx.store.blocks(numbers)) {
        if (block !== undefined && !send('newHeads', JSON.stringify(formatBlockHeader(block)))) return;
      }
    }
  };
}

/** Each event matching `constraints` from block `from`, in order, through the indexed event query. */
export function eventsCatchUp(ctx: StarknetContext, from: number, constraints: EventConstraints): CatchUp {
  return async (to, send) => {
    const filter = {
      fromBlock: { number: from },
      toBlock: { number: to },
      addresses: constraints.addresses.map(hex64ToBytes),
      keys: constraints.keys.map((k) => k.map(hex64ToBytes)),
      chunkSize: Math.min(CATCH_UP_BATCH, ctx.eventLimits.maxChunkSize),
    };
    let token: string | undefined;
    do {
      const page = await queryEvents(ctx.store, { ...filter, continuationToken: token }, { limits: ctx.eventLimits });
      for (const e of page.events) if (!send('events', JSON.stringify(toRpcEvent(e)))) return;
      token = page.continuationToken;
    } while (token !== undefined);
  };
}
