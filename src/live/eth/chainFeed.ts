import type { BlockHeader } from '@ethereumjs/block';
import { headChange } from '../../chain/headChange.js';
import type { StoredLog } from '../../chain/receipts.js';
import type { ChainStore, Head } from '../../chain/store.js';
import { bytesToData } from '../../codec/hex.js';

/**
 * The serving thread's source of chain events: told that the head moved (the follower wrote a
 * block), it reads the store, works out which blocks joined the canonical chain and which left
 * it, and hands one {@link ChainUpdate} to each listener. Everything a notification carries is
 * rendered once per event, lazily, and shared by every subscriber and filter that needs it: a
 * header's JSON, a block's logs and each log's JSON.
 *
 * How a header and a log look to a client is not this layer's business: the feed is given a
 * {@link ChainRenderer} (by `methods/`, which owns the wire shapes) and only decides when each
 * rendering happens, and that it happens once.
 */

/**
 * Most blocks one update announces on each side (see `headChange`): a catch-up of more announces
 * the newest ones; far above follow.maxReorgDepth's default (128), so every reorganisation the
 * follower makes is announced whole.
 */
export const MAX_BLOCKS_PER_UPDATE = 1024;

/** Where a log sits: its block, its transaction, and its index counted across the whole block. */
export interface LogPosition {
  blockHash: Uint8Array;
  blockNumber: bigint;
  blockTimestamp: bigint;
  transactionHash: Uint8Array;
  transactionIndex: number;
  logIndex: number;
}

/**
 * How the feed's headers and logs are shown to clients, given by `methods/`: `L` is a rendered
 * log (what a filter's changes hold). Each is called at most once per header, and once per log
 * and `removed` value.
 */
export interface ChainRenderer<L> {
  /** The header as `newHeads` sends it (a value `JSON.stringify` serializes). */
  header(header: BlockHeader): unknown;
  /** The log at its position; `removed` for a block that left the canonical chain. */
  log(log: StoredLog, at: LogPosition, removed: boolean): L;
}

/** One log of a feed block, with its rendering made on first use (as live and as removed). */
export interface FeedLog<L> {
  readonly log: StoredLog;
  /** The log as the renderer shows it; `removed` for a block that left the canonical chain. Shared: do not mutate. */
  rendered(removed: boolean): L;
  /** `JSON.stringify(rendered(removed))`, serialized once. */
  json(removed: boolean): string;
}

/** A block of an update: its header, and its logs and their JSON, each built once. */
export interface FeedBlock<L> {
  readonly header: BlockHeader;
  readonly hash: Uint8Array;
  /** `0x…` hash, as block filters return it. */
  readonly hashHex: string;
  /** The rendered header, serialized once. */
  headerJson(): string;
  /** The block's logs in order; read from the store on first use. */
  logs(): Promise<readonly FeedLog<L>[]>;
}

/** One move of the head: blocks that left the canonical chain (newest first), then those that joined (oldest first). */
export interface ChainUpdate<L> {
  readonly removed: readonly FeedBlock<L>[];
  readonly added: readonly FeedBlock<L>[];
}

export type ChainListener<L> = (update: ChainUpdate<L>) => void | Promise<void>;

export interface ChainFeedOptions {
  /** Reports a failure to read an update (the feed goes on with the next head). */
  onError?: (err: unknown) => void;
}

/** The chain feed of one network, its logs rendered as `L`; see the module comment. */
export class ChainFeed<L> {
  private readonly listeners = new Set<ChainListener<L>>();
  private last: Head | undefined;
  private started = false;
  private running = false;
  private again = false;
  private idle: Promise<void> = Promise.resolve();

  constructor(
    readonly store: ChainStore,
    private readonly renderer: ChainRenderer<L>,
    private readonly opts: ChainFeedOptions = {},
  ) {}

  /** Adds a listener; returns its removal. */
  listen(listener: ChainListener<L>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Learns the head to start from (nothing before it is announced). Called when the network opens;
   * `headMoved` also starts the feed when it was not.
   */
  start(): Promise<void> {
    this.started = true;
    return this.headMoved();
  }

  /**
   * The head may have moved: reads it and announces the change. Calls while an update is being
   * read are folded into one more pass, so a burst of heads costs one walk. Resolves once the
   * store's current head has been announced.
   */
  headMoved(): Promise<void> {
    this.started = true;
    this.again = true;
    if (!this.running) {
      this.running = true;
      this.idle = this.drain();
    }
    return this.idle;
  }

  private async drain(): Promise<void> {
    try {
      while (this.again) {
        this.again = false;
        try {
          await this.step();
        } catch (err) {
          this.opts.onError?.(err);
        }
      }
    } finally {
      this.running = false;
    }
  }

  private async step(): Promise<void> {
    if (!this.started) return;
    const head = await this.store.head();
    if (head === undefined) return;
    const last = this.last;
    this.last = head;
    if (last === undefined) return;
    const change = await headChange(this.store, last, head, MAX_BLOCKS_PER_UPDATE);
    if (change.added.length === 0 && change.removed.length === 0) return;
    const update: ChainUpdate<L> = {
      removed: change.removed.map((h) => this.block(h)),
      added: change.added.map((h) => this.block(h)),
    };
    for (const listener of [...this.listeners]) {
      try {
        await listener(update);
      } catch (err) {
        this.opts.onError?.(err);
      }
    }
  }

  /** A block as the feed hands it out: its logs read from the store on first use. */
  block(header: BlockHeader): FeedBlock<L> {
    const hash = header.hash();
    let headerJson: string | undefined;
    let logs: Promise<FeedLog<L>[]> | undefined;
    return {
      header,
      hash,
      hashHex: bytesToData(hash),
      headerJson: () => {
        headerJson ??= JSON.stringify(this.renderer.header(header));
        return headerJson;
      },
      logs: () => {
        logs ??= readLogs(this.store, header, hash, this.renderer);
        return logs;
      },
    };
  }
}

async function readLogs<L>(store: ChainStore, header: BlockHeader, hash: Uint8Array, renderer: ChainRenderer<L>): Promise<FeedLog<L>[]> {
  const [txHashes, receipts] = await Promise.all([store.txHashes(hash), store.receipts(hash)]);
  if (!txHashes || !receipts) return [];
  const out: FeedLog<L>[] = [];
  let logIndex = 0;
  receipts.forEach((receipt, txIndex) => {
    for (const log of receipt.logs) {
      out.push(
        feedLog(log, renderer, {
          blockHash: hash,
          blockNumber: header.number,
          blockTimestamp: header.timestamp,
          transactionHash: txHashes[txIndex],
          transactionIndex: txIndex,
          logIndex,
        }),
      );
      logIndex++;
    }
  });
  return out;
}

function feedLog<L>(log: StoredLog, renderer: ChainRenderer<L>, at: LogPosition): FeedLog<L> {
  const rendered: [L | undefined, L | undefined] = [undefined, undefined];
  const json: [string | undefined, string | undefined] = [undefined, undefined];
  const render = (removed: boolean): L => {
    const i = removed ? 1 : 0;
    rendered[i] ??= renderer.log(log, at, removed);
    return rendered[i];
  };
  return {
    log,
    rendered: render,
    json: (removed) => {
      const i = removed ? 1 : 0;
      json[i] ??= JSON.stringify(render(removed));
      return json[i];
    },
  };
}
