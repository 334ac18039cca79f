import type { Config } from '../config/settings.js';
import { type BlockRef, isPendingRef, storedBlockNumber } from './blockRef.js';
import { type ContinuationToken, formatContinuationToken, parseContinuationToken } from './continuationToken.js';
import { InvalidContinuationTokenError, PageSizeTooBigError, TooManyKeysInFilterError } from './errors.js';
import { type EventCursor, IndexCursor, MAX_READ_BATCH, ScanCursor } from './eventCursors.js';
import { eventConstraints, eventMatcher } from './eventMatcher.js';
import { type PlanName, planQuery } from './eventPlanner.js';
import { decodeEventRecord, type StoredEvent } from './eventRecord.js';
import type { EventPosition } from './keys.js';
import type { StarknetStore } from './store.js';

/**
 * The store-side `starknet_getEvents` query: a filter and a block range in, one page of events
 * and the continuation token of the next page out. It checks the limits, resolves the range,
 * asks the planner (`eventPlanner.ts`) which cursor (`eventCursors.ts`) to read, and fills the
 * page plus one look-ahead event. It speaks domain errors (`errors.ts`), never JSON-RPC.
 * Spec: starkware-libs/starknet-specs `api/starknet_api_openrpc.json`, `starknet_getEvents`.
 */

/**
 * The limits of a query, the `starknet` settings: the largest `chunk_size` (pathfinder's
 * `EVENT_PAGE_SIZE_LIMIT`; above it → {@link PageSizeTooBigError}) and the most key positions in a
 * filter (pathfinder's `EVENT_KEY_FILTER_LIMIT`, counted as `keys.length`; above it →
 * {@link TooManyKeysInFilterError}). Juno allows 1024 counted as positions plus values; the lower
 * limit bounds the per-event matching work and lets the `K` index stop at 16 positions, so the
 * setting cannot exceed `INDEXED_KEY_POSITIONS` (`keys.ts`).
 */
export type EventLimits = Pick<Config['starknet'], 'maxChunkSize' | 'maxKeyPositions'>;

/** Block tags (`blockRef.ts`): an imported node has no pending / pre-confirmed block (see {@link resolveRange}). */
export type { BlockRef, BlockTag } from './blockRef.js';

/** A decoded event filter plus page request. Felts are 32-byte values. */
export interface EventFilter {
  fromBlock?: BlockRef;
  toBlock?: BlockRef;
  /** Contracts; empty = any. */
  addresses?: readonly Uint8Array[];
  /** `keys[i]` = accepted values of an event's i-th key; empty = any. */
  keys?: readonly (readonly Uint8Array[])[];
  chunkSize: number;
  continuationToken?: string;
}

/** One matching event with its position; felts as stored. */
export interface EmittedEvent {
  fromAddress: string;
  keys: string[];
  data: string[];
  blockHash: string;
  blockNumber: number;
  transactionHash: string;
  transactionIndex: number;
  eventIndex: number;
}

/** A page of events; `continuationToken` is present exactly when more events match. */
export interface EventsPage {
  events: EmittedEvent[];
  continuationToken?: string;
}

/** Options of {@link getEvents}. */
export interface GetEventsOptions {
  /** The `starknet` settings (the network's context passes them). */
  limits: EventLimits;
  /** Use this plan instead of the planner's choice (it must apply to the filter). */
  plan?: PlanName;
  /** Called with the plan used (benchmark, tests). */
  onPlan?: (plan: PlanName) => void;
}

/**
 * Returns one page of events matching `filter`, in block, transaction, event order. The errors
 * are domain errors (`errors.ts`); the wire codes in parentheses are what `methods/errors.ts` makes
 * of them.
 *
 * Checks first, before any read: `chunkSize` > `limits.maxChunkSize` →
 * {@link PageSizeTooBigError} (31); more than `limits.maxKeyPositions` key positions →
 * {@link TooManyKeysInFilterError} (34); an unparsable token → {@link InvalidContinuationTokenError}
 * (33). Then an unknown block → {@link BlockNotFoundError} (24), and the range and the token
 * decide where to start:
 *
 * 1. `from > to` (including a `pending`/`pre_confirmed` start, see {@link resolveRange}) → an
 *    empty page without token, whatever the token says (no page of an empty range can exist).
 * 2. No token → start at the first event of block `from`.
 * 3. A token whose block lies outside `from..to` → invalid token (33): it belongs to another
 *    filter's range.
 * 4. A token inside the range → start at the event it points at (one seek per index stream, so
 *    the 100th page costs what the first does). We only issue tokens that point at the next
 *    matching event, so that event must exist and match this filter; when it does not, the token
 *    came from another filter (or was made up) → invalid token (33).
 *
 * The page is filled with `chunkSize` matches and one more is looked for: if it exists, the
 * token points at it, so a page ending on the last event of a block, or of the range, gets a
 * token exactly when a match follows (the bug class of eqlabs/pathfinder#1844).
 */
export async function getEvents(store: StarknetStore, filter: EventFilter, opts: GetEventsOptions): Promise<EventsPage> {
  const limits = opts.limits;
  if (filter.chunkSize > limits.maxChunkSize) throw new PageSizeTooBigError(filter.chunkSize, limits.maxChunkSize);
  const keys = filter.keys ?? [];
  if (keys.length > limits.maxKeyPositions) throw new TooManyKeysInFilterError(keys.length, limits.maxKeyPositions);
  if (!Number.isInteger(filter.chunkSize) || filter.chunkSize < 1) throw new RangeError('chunkSize must be an integer ≥ 1');
  const token = filter.continuationToken === undefined ? undefined : parseContinuationToken(filter.continuationToken);

  const range = await resolveRange(store, filter.fromBlock, filter.toBlock);
  if (range === undefined) return { events: [] };
  if (token && (token.block < range.from || token.block > range.to)) throw new InvalidContinuationTokenError('block outside the range');
  const start: EventPosition = token ? { block: token.block, index: token.offset } : { block: range.from, index: 0 };

  const constraints = eventConstraints(filter.addresses ?? [], keys);
  const plan = await planQuery(store.level, constraints, start, range.to, opts.plan);
  opts.onPlan?.(plan.name);

  const matches = eventMatcher(constraints);
  const cursor = plan.prefixes ? new IndexCursor(store.level, plan.prefixes, start, range.to) : new ScanCursor(store.level, start, range.to);
  try {
    return await readPage(store, cursor, matches, filter.chunkSize, token);
  } finally {
    await cursor.close();
  }
}

/**
 * Resolves `from_block` / `to_block` to an inclusive block range, or undefined when it is empty.
 *
 * - `{block_number}` / `{block_hash}`: the block must be stored, else {@link BlockNotFoundError}
 *   (blocks need not be contiguous: a number inside a gap is unknown too).
 * - `latest`: the highest stored block; `l1_accepted`: the highest stored block whose status is
 *   ACCEPTED_ON_L1. Either → {@link BlockNotFoundError} when there is none.
 * - `pending` (spec ≤ 0.8) and `pre_confirmed` (0.9+): the block being built after `latest`. An
 *   imported node never has one, so it holds no events: as `from_block` the range starts after
 *   the latest block (empty); as `to_block` it ends at the latest block, like `latest` — the same
 *   as pathfinder with an empty pending block.
 * - Omitted: `from` = block 0; `to` = the latest block (no blocks → empty range).
 */
async function resolveRange(store: StarknetStore, from: BlockRef | undefined, to: BlockRef | undefined): Promise<{ from: number; to: number } | undefined> {
  const latest = await store.latestNumber();
  const fromNumber = from === undefined ? 0 : isPendingRef(from) ? (latest ?? -1) + 1 : await storedBlockNumber(store, from);
  const toNumber = to === undefined || isPendingRef(to) ? latest : await storedBlockNumber(store, to);
  if (toNumber === undefined || fromNumber > toNumber) return undefined;
  return { from: fromNumber, to: toNumber };
}

/**
 * Fills one page from `cursor` (the token cases are described on {@link getEvents}). With a
 * token, the cursor starts at the token's position, and the first event read must be that
 * position and match the filter.
 */
async function readPage(
  store: StarknetStore,
  cursor: EventCursor,
  matches: (ev: StoredEvent) => boolean,
  chunkSize: number,
  token: ContinuationToken | undefined,
): Promise<EventsPage> {
  const found: { pos: EventPosition; ev: StoredEvent }[] = [];
  let next: EventPosition | undefined;
  let checkToken = token !== undefined;
  let batch = Math.min(chunkSize + 1, MAX_READ_BATCH);
  read: for (;;) {
    const { positions, records } = await cursor.next(batch);
    if (positions.length === 0) break;
    batch = Math.min(batch * 2, MAX_READ_BATCH);
    for (let i = 0; i < positions.length; i++) {
      const pos = positions[i];
      const ev = decodeEventRecord(records[i]);
      if (checkToken) {
        if (pos.block !== token!.block || pos.index !== token!.offset || !matches(ev))
          throw new InvalidContinuationTokenError('not the next match of this filter');
        checkToken = false;
      } else if (!matches(ev)) {
        continue;
      }
      if (found.length === chunkSize) {
        next = pos;
        break read;
      }
      found.push({ pos, ev });
    }
  }
  if (checkToken) throw new InvalidContinuationTokenError('no event of this filter at its position');

  const blocks = await store.blocks(found.map((f) => f.pos.block));
  const events = found.map(({ pos, ev }, i): EmittedEvent => {
    const b = blocks[i];
    if (!b) throw new Error(`database corrupt: block ${pos.block} has events but no record`);
    return {
      fromAddress: ev.fromAddress,
      keys: ev.keys,
      data: ev.data,
      blockHash: b.hash,
      blockNumber: pos.block,
      transactionHash: ev.transactionHash,
      transactionIndex: ev.txIndex,
      eventIndex: ev.eventIndex,
    };
  });
  return next ? { events, continuationToken: formatContinuationToken({ block: next.block, offset: next.index }) } : { events };
}
