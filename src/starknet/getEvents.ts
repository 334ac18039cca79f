import type { Level } from '../db/database.js';
import { type ContinuationToken, formatContinuationToken, parseContinuationToken } from './continuationToken.js';
import { BlockNotFoundError, InvalidContinuationTokenError, PageSizeTooBigError, TooManyKeysInFilterError } from './errors.js';
import { bytesToHex64, trustedFeltToHex64 } from './felt.js';
import {
  blockOfPostingKey,
  comparePositions,
  decodeOrdinals,
  type EventPosition,
  eventBounds,
  eventKey,
  positionOfEventKey,
  postingBounds,
  streamPrefix,
} from './keys.js';
import type { EventRecord, StarknetStore } from './store.js';

/**
 * The store-side `starknet_getEvents` query: resolve the block range, pick an index, read one
 * page plus one look-ahead event, and build the token of the next page.
 * Spec: starkware-libs/starknet-specs `api/starknet_api_openrpc.json`, `starknet_getEvents`.
 */

/** Largest `chunk_size` (pathfinder's `EVENT_PAGE_SIZE_LIMIT`); above it → 31. */
export const EVENT_PAGE_SIZE_LIMIT = 1024;

/**
 * Most key positions in a filter (pathfinder's `EVENT_KEY_FILTER_LIMIT`, counted as
 * `keys.length`); above it → 34. Juno allows 1024 counted as positions plus values; the lower
 * limit bounds the per-event matching work and lets the `K` index stop at 16 positions.
 */
export const EVENT_KEY_FILTER_LIMIT = 16;

/**
 * Most index streams one plan may merge (e.g. 8 addresses × 8 selectors = 64 contract+selector
 * streams). Each stream is one LevelDB iterator; past this a plan is not considered and a coarser
 * index (or the block scan) is used instead.
 */
export const MAX_INDEX_STREAMS = 64;

/**
 * Positions read from each candidate index to compare them when several apply. Reading 256 keys
 * costs well under a millisecond and tells a stream with 10 matches from one with 100,000.
 */
const PROBE_POSITIONS = 256;

/** Largest single read (keys or records) while filling a page. */
const MAX_READ_BATCH = 4096;

/** Block tags: an imported node has no pending / pre-confirmed block (see {@link resolveRange}). */
export type BlockTag = 'latest' | 'l1_accepted' | 'pending' | 'pre_confirmed';

/** A `from_block` / `to_block`, decoded. */
export type BlockRef = { number: number } | { hash: Uint8Array } | { tag: BlockTag };

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

/**
 * How a page is read. `scan` walks every event of the range (`E`); the others merge index
 * streams: `address` (`A`, one stream per contract), `key<i>` (`K`, one per value of `keys[i]`),
 * `addressKey0` (`C`, one per contract × first-key pair).
 */
export type PlanName = 'scan' | 'address' | 'addressKey0' | `key${number}`;

/** Options for tests and the benchmark. */
export interface GetEventsOptions {
  /** Use this plan instead of the planner's choice (it must apply to the filter). */
  plan?: PlanName;
  /** Called with the plan used (benchmark, tests). */
  onPlan?: (plan: PlanName) => void;
}

/**
 * Returns one page of events matching `filter`, in block, transaction, event order.
 *
 * Checks first, before any read: `chunkSize` > {@link EVENT_PAGE_SIZE_LIMIT} → 31; more than
 * {@link EVENT_KEY_FILTER_LIMIT} key positions → 34; an unparsable token → 33. Then an unknown
 * block → 24, and the range and the token decide where to start:
 *
 * 1. `from > to` (including a `pending`/`pre_confirmed` start, see {@link resolveRange}) → an
 *    empty page without token, whatever the token says (no page of an empty range can exist).
 * 2. No token → start at the first event of block `from`.
 * 3. A token whose block lies outside `from..to` → 33: it belongs to another filter's range.
 * 4. A token inside the range → start at the event it points at (one seek per index stream, so
 *    the 100th page costs what the first does). We only issue tokens that point at the next
 *    matching event, so that event must exist and match this filter; when it does not, the token
 *    came from another filter (or was made up) → 33.
 *
 * The page is filled with `chunkSize` matches and one more is looked for: if it exists, the
 * token points at it, so a page ending on the last event of a block, or of the range, gets a
 * token exactly when a match follows (the bug class of eqlabs/pathfinder#1844).
 */
export async function getEvents(store: StarknetStore, filter: EventFilter, opts: GetEventsOptions = {}): Promise<EventsPage> {
  if (filter.chunkSize > EVENT_PAGE_SIZE_LIMIT) throw new PageSizeTooBigError();
  const rawKeys = filter.keys ?? [];
  if (rawKeys.length > EVENT_KEY_FILTER_LIMIT) throw new TooManyKeysInFilterError();
  if (!Number.isInteger(filter.chunkSize) || filter.chunkSize < 1) throw new RangeError('chunkSize must be an integer ≥ 1');
  const token = filter.continuationToken === undefined ? undefined : parseContinuationToken(filter.continuationToken);

  const range = await resolveRange(store, filter.fromBlock, filter.toBlock);
  if (range === undefined) return { events: [] };
  if (token && (token.block < range.from || token.block > range.to)) throw new InvalidContinuationTokenError();
  const start: EventPosition = token ? { block: token.block, index: token.offset } : { block: range.from, index: 0 };

  const addresses = uniqueFelts(filter.addresses ?? []);
  const keys = rawKeys.map(uniqueFelts);
  // Trailing wildcards constrain nothing (an event need not have those keys): drop them.
  while (keys.length > 0 && keys[keys.length - 1].length === 0) keys.pop();

  const plans = applicablePlans(addresses, keys);
  let plan: Plan;
  if (opts.plan !== undefined) {
    const forced = opts.plan === 'scan' ? SCAN : plans.find((p) => p.name === opts.plan);
    if (!forced) throw new Error(`plan ${opts.plan} does not apply to this filter`);
    plan = forced;
  } else {
    plan = await choosePlan(store.level, candidatePlans(plans), start, range.to);
  }
  opts.onPlan?.(plan.name);

  const matches = matcher(addresses, keys);
  const source = plan.prefixes ? new IndexSource(store.level, plan.prefixes, start, range.to) : new ScanSource(store.level, start, range.to);
  try {
    return await readPage(store, source, matches, filter.chunkSize, token);
  } finally {
    await source.close();
  }
}

/**
 * Resolves `from_block` / `to_block` to an inclusive block range, or undefined when it is empty.
 *
 * - `{block_number}` / `{block_hash}`: the block must be stored, else 24 (blocks need not be
 *   contiguous: a number inside a gap is unknown too).
 * - `latest`: the highest stored block; `l1_accepted`: the highest stored block whose status is
 *   ACCEPTED_ON_L1. Either → 24 when there is none.
 * - `pending` (spec ≤ 0.8) and `pre_confirmed` (0.9+): the block being built after `latest`. An
 *   imported node never has one, so it holds no events: as `from_block` the range starts after
 *   the latest block (empty); as `to_block` it ends at the latest block, like `latest` — the same
 *   as pathfinder with an empty pending block.
 * - Omitted: `from` = block 0; `to` = the latest block (no blocks → empty range).
 */
async function resolveRange(store: StarknetStore, from: BlockRef | undefined, to: BlockRef | undefined): Promise<{ from: number; to: number } | undefined> {
  const latest = await store.latestNumber();
  const fromNumber = from === undefined ? 0 : isPendingTag(from) ? (latest ?? -1) + 1 : await resolveBlock(store, from);
  const toNumber = to === undefined || isPendingTag(to) ? latest : await resolveBlock(store, to);
  if (toNumber === undefined || fromNumber > toNumber) return undefined;
  return { from: fromNumber, to: toNumber };
}

function isPendingTag(ref: BlockRef): boolean {
  return 'tag' in ref && (ref.tag === 'pending' || ref.tag === 'pre_confirmed');
}

async function resolveBlock(store: StarknetStore, ref: BlockRef): Promise<number> {
  let n: number | undefined;
  if ('number' in ref) n = (await store.block(ref.number)) ? ref.number : undefined;
  else if ('hash' in ref) n = await store.blockNumberByHash(ref.hash);
  else if (ref.tag === 'latest') n = await store.latestNumber();
  else if (ref.tag === 'l1_accepted') n = await store.l1AcceptedNumber();
  if (n === undefined) throw new BlockNotFoundError();
  return n;
}

/** Distinct felts, as 64-digit hex, in first-seen order. */
function uniqueFelts(felts: readonly Uint8Array[]): string[] {
  return [...new Set(felts.map(bytesToHex64))];
}

/** A predicate on stored events: the full filter (plans may read supersets of the matches). */
function matcher(addresses: string[], keys: string[][]): (rec: EventRecord) => boolean {
  const addressSet = addresses.length > 0 ? new Set(addresses) : undefined;
  const keySets = keys.map((k) => (k.length > 0 ? new Set(k) : undefined));
  return (rec) => {
    if (addressSet && !addressSet.has(trustedFeltToHex64(rec[2]))) return false;
    const eventKeys = rec[3];
    // An event with fewer keys than a constrained position does not match (trailing wildcards
    // were dropped, so keySets ends with a constraint).
    if (eventKeys.length < keySets.length) return false;
    for (let i = 0; i < keySets.length; i++) {
      const set = keySets[i];
      if (set && !set.has(trustedFeltToHex64(eventKeys[i]))) return false;
    }
    return true;
  };
}

// ---------------------------------------------------------------------------------------------
// Planning

/** A way to enumerate a superset of the matches in position order. `prefixes` null = scan. */
interface Plan {
  name: PlanName;
  prefixes: Uint8Array[] | null;
}

const SCAN: Plan = { name: 'scan', prefixes: null };

const hexBytes = (hex64: string) => Uint8Array.from(Buffer.from(hex64, 'hex'));

/** Every index plan that applies to a filter (any of them lists a superset of the matches). */
function applicablePlans(addresses: string[], keys: string[][]): Plan[] {
  const plans: Plan[] = [];
  const k0 = keys[0] ?? [];
  if (addresses.length > 0 && k0.length > 0 && addresses.length * k0.length <= MAX_INDEX_STREAMS) {
    const prefixes: Uint8Array[] = [];
    for (const a of addresses) for (const k of k0) prefixes.push(streamPrefix.addressKey0(hexBytes(a), hexBytes(k)));
    plans.push({ name: 'addressKey0', prefixes });
  }
  if (addresses.length > 0 && addresses.length <= MAX_INDEX_STREAMS) {
    plans.push({ name: 'address', prefixes: addresses.map((a) => streamPrefix.address(hexBytes(a))) });
  }
  for (let i = 0; i < keys.length; i++) {
    if (keys[i].length > 0 && keys[i].length <= MAX_INDEX_STREAMS) {
      plans.push({ name: `key${i}`, prefixes: keys[i].map((k) => streamPrefix.key(i, hexBytes(k))) });
    }
  }
  return plans;
}

/**
 * The plans worth comparing: contract + first key, when it applies, lists a subset of both the
 * contract-only and the first-key-only streams, so it replaces them.
 */
function candidatePlans(plans: Plan[]): Plan[] {
  if (!plans.some((p) => p.name === 'addressKey0')) return plans;
  return plans.filter((p) => p.name !== 'address' && p.name !== 'key0');
}

/**
 * Picks the sparsest index plan. With one candidate it is taken (an index read costs in
 * proportion to its entries, a scan in proportion to the range). With several, each is probed
 * for {@link PROBE_POSITIONS} positions from the start block: a plan that runs out first has the
 * fewest entries left; otherwise the one whose last probed position lies furthest ahead is the
 * sparsest. No candidate → scan.
 */
async function choosePlan(level: Level, plans: Plan[], from: EventPosition, to: number): Promise<Plan> {
  if (plans.length === 0) return SCAN;
  if (plans.length === 1) return plans[0];
  let best: { plan: Plan; exhausted: boolean; count: number; last: EventPosition | undefined } | undefined;
  for (const plan of plans) {
    const cursor = new MergeCursor(level, plan.prefixes!, from, to);
    let positions: EventPosition[];
    try {
      positions = await cursor.next(PROBE_POSITIONS);
    } finally {
      await cursor.close();
    }
    const probe = { plan, exhausted: positions.length < PROBE_POSITIONS, count: positions.length, last: positions[positions.length - 1] };
    if (!best) best = probe;
    else if (probe.exhausted && (!best.exhausted || probe.count < best.count)) best = probe;
    else if (!probe.exhausted && !best.exhausted && comparePositions(probe.last!, best.last!) > 0) best = probe;
  }
  return best!.plan;
}

// ---------------------------------------------------------------------------------------------
// Reading

/** Yields stored events of the range in position order: positions and their `E` records. */
interface EventSource {
  next(max: number): Promise<{ positions: EventPosition[]; values: Uint8Array[] }>;
  close(): Promise<void>;
}

/** Every event from position `from` to the end of block `to`, straight from `E`. */
class ScanSource implements EventSource {
  private readonly it;
  constructor(level: Level, from: EventPosition, to: number) {
    this.it = level.iterator(eventBounds(from, to));
  }
  async next(max: number) {
    const entries = await this.it.nextv(max);
    return { positions: entries.map((e) => positionOfEventKey(e[0])), values: entries.map((e) => e[1]) };
  }
  close() {
    return this.it.close();
  }
}

/** The events listed by merged index streams; records fetched with one `getMany` per batch. */
class IndexSource implements EventSource {
  private readonly cursor: MergeCursor;
  constructor(
    private readonly level: Level,
    prefixes: Uint8Array[],
    from: EventPosition,
    to: number,
  ) {
    this.cursor = new MergeCursor(level, prefixes, from, to);
  }
  async next(max: number) {
    const positions = await this.cursor.next(max);
    const values = positions.length > 0 ? await this.level.getMany(positions.map((p) => eventKey(p.block, p.index))) : [];
    const out: Uint8Array[] = [];
    for (const v of values) {
      if (v === undefined) throw new Error('database corrupt: an index entry has no event record');
      out.push(v);
    }
    return { positions, values: out };
  }
  close() {
    return this.cursor.close();
  }
}

/**
 * One index stream from position `from` to the end of block `to`: its posting entries (one per
 * block) read in growing batches and expanded into positions.
 */
class StreamCursor {
  private readonly it;
  private readonly from: EventPosition;
  private entries: [Uint8Array, Uint8Array][] = [];
  private entry = 0;
  private block = 0;
  private ordinals: number[] = [];
  private ordinal = 0;
  private done = false;
  private batch = 8;
  constructor(level: Level, prefix: Uint8Array, from: EventPosition, to: number) {
    this.from = from;
    this.it = level.iterator(postingBounds(prefix, from.block, to));
  }
  /** The next position without consuming it; undefined at the end. */
  async head(): Promise<EventPosition | undefined> {
    for (;;) {
      const buffered = this.peekBuffered();
      if (buffered !== null) return buffered;
      this.entries = await this.it.nextv(this.batch);
      this.entry = 0;
      this.batch = Math.min(this.batch * 4, MAX_READ_BATCH);
      if (this.entries.length === 0) this.done = true;
    }
  }
  /** The head if it needs no read: a position, undefined at the end, null when a read is due. */
  peekBuffered(): EventPosition | null | undefined {
    while (this.ordinal >= this.ordinals.length) {
      if (this.entry >= this.entries.length) return this.done ? undefined : null;
      const [key, value] = this.entries[this.entry++];
      this.block = blockOfPostingKey(key);
      this.ordinals = decodeOrdinals(value);
      this.ordinal = 0;
      // The first block may start mid-block (a continuation token): skip earlier events.
      if (this.block === this.from.block) while (this.ordinal < this.ordinals.length && this.ordinals[this.ordinal] < this.from.index) this.ordinal++;
    }
    return { block: this.block, index: this.ordinals[this.ordinal] };
  }
  /** Consumes the head (call after `head()` or `peekBuffered()` returned a position). */
  skip(): void {
    this.ordinal++;
  }
  close() {
    return this.it.close();
  }
}

/**
 * The union of index streams in position order (a k-way merge). Streams of one plan are
 * disjoint — an event has one contract and one value per key position, and filter values are
 * deduplicated — so the union has no duplicates to remove.
 */
class MergeCursor {
  private readonly streams: StreamCursor[];
  constructor(level: Level, prefixes: Uint8Array[], from: EventPosition, to: number) {
    this.streams = prefixes.map((p) => new StreamCursor(level, p, from, to));
  }
  async next(max: number): Promise<EventPosition[]> {
    const out: EventPosition[] = [];
    while (out.length < max) {
      let best: StreamCursor | undefined;
      let bestPos: EventPosition | undefined;
      for (const s of this.streams) {
        let p = s.peekBuffered();
        if (p === null) p = await s.head();
        if (p !== undefined && (bestPos === undefined || comparePositions(p, bestPos) < 0)) {
          best = s;
          bestPos = p;
        }
      }
      if (!best) break;
      best.skip();
      out.push(bestPos!);
    }
    return out;
  }
  async close(): Promise<void> {
    await Promise.all(this.streams.map((s) => s.close()));
  }
}

/**
 * Fills one page from `source` (the token cases are described on {@link getEvents}). With a
 * token, the source starts at the token's position, and the first event read must be that
 * position and match the filter.
 */
async function readPage(
  store: StarknetStore,
  source: EventSource,
  matches: (rec: EventRecord) => boolean,
  chunkSize: number,
  token: ContinuationToken | undefined,
): Promise<EventsPage> {
  const found: { pos: EventPosition; rec: EventRecord }[] = [];
  let next: EventPosition | undefined;
  let checkToken = token !== undefined;
  let batch = Math.min(chunkSize + 1, MAX_READ_BATCH);
  read: for (;;) {
    const { positions, values } = await source.next(batch);
    if (positions.length === 0) break;
    batch = Math.min(batch * 2, MAX_READ_BATCH);
    for (let i = 0; i < positions.length; i++) {
      const pos = positions[i];
      const rec = store.decodeEvent(values[i]);
      if (checkToken) {
        if (pos.block !== token!.block || pos.index !== token!.offset || !matches(rec)) throw new InvalidContinuationTokenError();
        checkToken = false;
      } else if (!matches(rec)) {
        continue;
      }
      if (found.length === chunkSize) {
        next = pos;
        break read;
      }
      found.push({ pos, rec });
    }
  }
  if (checkToken) throw new InvalidContinuationTokenError();

  const blocks = await store.blocks(found.map((f) => f.pos.block));
  const events = found.map(({ pos, rec }, i): EmittedEvent => {
    const b = blocks[i];
    if (!b) throw new Error(`database corrupt: block ${pos.block} has events but no record`);
    return {
      fromAddress: rec[2],
      keys: rec[3],
      data: rec[4],
      blockHash: b.hash,
      blockNumber: pos.block,
      transactionHash: rec[5],
      transactionIndex: rec[0],
      eventIndex: rec[1],
    };
  });
  return next ? { events, continuationToken: formatContinuationToken({ block: next.block, offset: next.index }) } : { events };
}
