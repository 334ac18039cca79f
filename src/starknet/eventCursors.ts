import type { Level } from '../db/database.js';
import { blockOfPostingKey, comparePositions, decodeOrdinals, type EventPosition, eventBounds, eventKey, positionOfEventKey, postingBounds } from './keys.js';

/**
 * Cursors over stored events in position order (block, then ordinal in the block; key schema in
 * `keys.ts`), from a start position to the end of a block: the scan cursor over every event
 * (`E`), and the index cursor that merges posting-list streams (`A`, `K`, `C`) and fetches the
 * events they list. The planner (`eventPlanner.ts`) decides which one a query uses.
 */

/** Largest single read (keys or records) while filling a page. */
export const MAX_READ_BATCH = 4096;

/**
 * Yields stored events of a range in position order: their positions and their `E` values, still
 * encoded (the reader decodes only as many as it needs, `eventRecord.ts`).
 */
export interface EventCursor {
  /** Up to `max` more events; none at the end. `records[i]` is the `E` value at `positions[i]`. */
  next(max: number): Promise<{ positions: EventPosition[]; records: Uint8Array[] }>;
  close(): Promise<void>;
}

/** Every event from position `from` to the end of block `to`, straight from `E`. */
export class ScanCursor implements EventCursor {
  private readonly it;
  constructor(level: Level, from: EventPosition, to: number) {
    this.it = level.iterator(eventBounds(from, to));
  }
  async next(max: number) {
    const entries = await this.it.nextv(max);
    return { positions: entries.map((e) => positionOfEventKey(e[0])), records: entries.map((e) => e[1]) };
  }
  close() {
    return this.it.close();
  }
}

/**
 * The events listed by the index streams under `prefixes`, merged in position order; their
 * records are fetched with one `getMany` per batch.
 */
export class IndexCursor implements EventCursor {
  private readonly positions: MergeCursor;
  constructor(
    private readonly level: Level,
    prefixes: Uint8Array[],
    from: EventPosition,
    to: number,
  ) {
    this.positions = new MergeCursor(level, prefixes, from, to);
  }
  async next(max: number) {
    const positions = await this.positions.next(max);
    const values = positions.length > 0 ? await this.level.getMany(positions.map((p) => eventKey(p.block, p.index))) : [];
    const records: Uint8Array[] = [];
    for (const v of values) {
      if (v === undefined) throw new Error('database corrupt: an index entry has no event record');
      records.push(v);
    }
    return { positions, records };
  }
  close() {
    return this.positions.close();
  }
}

/**
 * The union of the index streams under `prefixes`, as positions in order (a k-way merge).
 * Streams of one plan are disjoint — an event has one contract and one value per key position,
 * and filter values are deduplicated — so the union has no duplicates to remove.
 */
export class MergeCursor {
  private readonly streams: StreamCursor[];
  constructor(level: Level, prefixes: Uint8Array[], from: EventPosition, to: number) {
    this.streams = prefixes.map((p) => new StreamCursor(level, p, from, to));
  }
  /** Up to `max` more positions; none at the end. */
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
