import type { StoredEvent } from '../../starknet/eventRecord.js';
import { feltsEqual } from '../../starknet/felt.js';
import type { StarknetStore, StoredBlock } from '../../starknet/store.js';

/**
 * The serving thread's source of Starknet chain events. Told that the head moved (the follower
 * wrote a block or switched branches), it reads the store and works out which blocks joined the
 * chain since the last announcement and which announced blocks left it, and hands one
 * {@link StarknetUpdate} to each listener. What a notification carries is rendered once per
 * event, lazily, and shared by every subscriber: a header's JSON, a block's events, each event's
 * JSON, a reorganisation's JSON.
 *
 * Removed blocks are found from the feed's own memory of what it announced (number → hash of the
 * last {@link REMEMBERED_BLOCKS} blocks), not from the store, which deletes a dropped Starknet
 * block in the same batch that writes its replacement. So a reorganisation names exactly the
 * announced blocks that left the chain: blocks written and dropped between two announcements
 * were never announced, and are not named.
 *
 * The shapes themselves (BLOCK_HEADER, EMITTED_EVENT, REORG_DATA) are `methods/`'s: the feed is
 * given a {@link StarknetRenderer} and decides only when each rendering happens, and that it
 * happens once.
 */

/**
 * Blocks the feed remembers, and the most one update announces (a catch-up of more announces the
 * newest ones). Far above follow.maxReorgDepth's default (128), so every reorganisation the
 * follower makes is named whole; also the spec's 1024-block limit on a subscription's history.
 */
export const REMEMBERED_BLOCKS = 1024;

/** A block number and hash. */
export interface BlockRef {
  readonly number: number;
  readonly hash: string;
}

/**
 * How the feed's blocks, events and reorganisations are shown to clients, given by `methods/`;
 * each returns a value `JSON.stringify` serializes, and is called at most once per item.
 */
export interface StarknetRenderer {
  /** A block's header (the spec's BLOCK_HEADER). */
  header(block: StoredBlock): unknown;
  /** One event of a block (EMITTED_EVENT). */
  event(block: StoredBlock, event: StoredEvent): unknown;
  /** The announced blocks that left the chain, lowest and highest (REORG_DATA). */
  reorg(first: BlockRef, last: BlockRef): unknown;
}

/** One event of a feed block, with its rendering serialized on first use. */
export interface FeedEvent {
  readonly event: StoredEvent;
  /** The rendered event, serialized once. */
  json(): string;
}

/** A block of an update: its record, and its header JSON and events, each built once. */
export interface FeedBlock {
  readonly block: StoredBlock;
  /** The rendered header, serialized once. */
  headerJson(): string;
  /** The block's events in order, read from the store on first use. */
  events(): Promise<readonly FeedEvent[]>;
}

/** Announced blocks that left the chain: the lowest and the highest (the spec's REORG_DATA). */
export interface RemovedRange {
  readonly first: BlockRef;
  readonly last: BlockRef;
  /** The rendered range, serialized once. */
  json(): string;
}

/** One move of the head: announced blocks that left the chain, if any, then those that joined, oldest first. */
export interface StarknetUpdate {
  readonly removed?: RemovedRange;
  readonly added: readonly FeedBlock[];
}

export type StarknetListener = (update: StarknetUpdate) => void | Promise<void>;

export interface StarknetFeedOptions {
  /** Reports a failure to read an update or to run a task (the feed goes on). */
  onError?: (err: unknown) => void;
}

/** The Starknet feed of one network; see the module comment. */
export class StarknetFeed {
  private readonly listeners = new Set<StarknetListener>();
  /** Announced blocks still on the chain as far as the feed knows, by number, ascending. */
  private readonly recent = new Map<number, string>();
  private started = false;
  private stepQueued: Promise<void> | undefined;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: StarknetStore,
    private readonly renderer: StarknetRenderer,
    private readonly opts: StarknetFeedOptions = {},
  ) {}

  /** Adds a listener; returns its removal. */
  listen(listener: StarknetListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The last block announced (the head when the feed started, before any), or undefined. */
  head(): BlockRef | undefined {
    let last: BlockRef | undefined;
    for (const [number, hash] of this.recent) last = { number, hash };
    return last;
  }

  /**
   * Runs `task` between two updates: no update is read or announced while it runs, so what it
   * reads up to {@link head} and what the listeners are given next neither overlap nor leave a
   * gap. A subscription's catch-up runs so.
   */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * The head may have moved: reads the store and announces the change. Calls made while one pass
   * waits are folded into it. Resolves once the store's current head has been announced.
   */
  headMoved(): Promise<void> {
    this.stepQueued ??= this.exclusive(async () => {
      this.stepQueued = undefined;
      try {
        await this.step();
      } catch (err) {
        this.opts.onError?.(err);
      }
    });
    return this.stepQueued;
  }

  private async step(): Promise<void> {
    const head = await this.store.head();
    if (!this.started) {
      this.started = true;
      // Nothing before the head the network opened at is announced; its recent blocks are
      // remembered, so a reorganisation below it is still named.
      if (head !== undefined) for (const b of (await this.store.blocksDownFrom(head.number, REMEMBERED_BLOCKS)).reverse()) this.recent.set(b.number, b.hash);
      return;
    }
    if (head === undefined) return;
    const top = this.head();
    if (top !== undefined && top.number === head.number && feltsEqual(top.hash, head.hash)) return;

    // The highest remembered block the store still holds with the same hash is the fork point.
    const removed: BlockRef[] = [];
    let ancestor = -1;
    for (const [number, hash] of [...this.recent].reverse()) {
      const stored = number <= head.number ? await this.store.block(number) : undefined;
      if (stored !== undefined && feltsEqual(stored.hash, hash)) {
        ancestor = number;
        break;
      }
      removed.push({ number, hash });
    }
    if (ancestor < 0 && this.recent.size > 0) ancestor = Math.min(...this.recent.keys()) - 1;
    const from = Math.max(ancestor + 1, head.number - REMEMBERED_BLOCKS + 1);
    const numbers = Array.from({ length: Math.max(0, head.number - from + 1) }, (_, i) => from + i);
    const added = (await this.store.blocks(numbers)).filter((b): b is StoredBlock => b !== undefined);

    for (const r of removed) this.recent.delete(r.number);
    for (const b of added) this.recent.set(b.number, b.hash);
    for (const n of this.recent.keys()) {
      if (this.recent.size <= REMEMBERED_BLOCKS) break;
      this.recent.delete(n);
    }
    if (removed.length === 0 && added.length === 0) return;
    const update: StarknetUpdate = {
      removed: removed.length === 0 ? undefined : removedRange(removed[removed.length - 1], removed[0], this.renderer),
      added: added.map((b) => feedBlock(this.store, b, this.renderer)),
    };
    for (const listener of [...this.listeners]) {
      try {
        await listener(update);
      } catch (err) {
        this.opts.onError?.(err);
      }
    }
  }
}

function removedRange(first: BlockRef, last: BlockRef, renderer: StarknetRenderer): RemovedRange {
  let json: string | undefined;
  return {
    first,
    last,
    json: () => {
      json ??= JSON.stringify(renderer.reorg(first, last));
      return json;
    },
  };
}

/** A block of an update, its JSON and events read and rendered on first use. */
function feedBlock(store: StarknetStore, block: StoredBlock, renderer: StarknetRenderer): FeedBlock {
  let header: string | undefined;
  let events: Promise<FeedEvent[]> | undefined;
  return {
    block,
    headerJson: () => {
      header ??= JSON.stringify(renderer.header(block));
      return header;
    },
    events: () => {
      events ??= store.blockEvents(block.number).then((list) => list.map((ev) => feedEvent(block, ev, renderer)));
      return events;
    },
  };
}

function feedEvent(block: StoredBlock, ev: StoredEvent, renderer: StarknetRenderer): FeedEvent {
  let json: string | undefined;
  return {
    event: ev,
    json: () => {
      json ??= JSON.stringify(renderer.event(block, ev));
      return json;
    },
  };
}
