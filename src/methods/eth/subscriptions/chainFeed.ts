import type { BlockHeader } from '@ethereumjs/block';
import { headChange } from '../../../chain/headChange.js';
import type { StoredLog } from '../../../chain/receipts.js';
import type { ChainStore, Head } from '../../../chain/store.js';
import { bytesToData } from '../../../codec/hex.js';
import { formatHeader } from '../_shared/formatBlock.js';
import { formatLog, type LogPosition, type RpcLog } from '../_shared/formatLog.js';

/**
 * The serving thread's source of chain events: told that the head moved (the follower wrote a
 * block), it reads the store, works out which blocks joined the canonical chain and which left
 * it, and hands one {@link ChainUpdate} to each listener. Everything a notification carries is
 * rendered once per event, lazily, and shared by every subscriber and filter that needs it: a
 * header's JSON, a block's logs and each log's JSON.
 */

/**
 * Most blocks one update announces on each side (see `headChange`): a catch-up of more announces
 * the newest ones; far above follow.maxReorgDepth's default (128), so every reorganisation the
 * follower makes is announced whole.
 */
export const MAX_BLOCKS_PER_UPDATE = 1024;

/** One log of a feed block, with its JSON rendered on first use (as live and as removed). */
export interface FeedLog {
  readonly log: StoredLog;
  /** The log as the wire shows it; `removed` for a block that left the canonical chain. Shared: do not mutate. */
  rpc(removed: boolean): RpcLog;
  /** `JSON.stringify(rpc(removed))`, serialized once. */
  json(removed: boolean): string;
}

/** A block of an update: its header, and its logs and their JSON, each built once. */
export interface FeedBlock {
  readonly header: BlockHeader;
  readonly hash: Uint8Array;
  /** `0x…` hash, as block filters return it. */
  readonly hashHex: string;
  /** The header as `newHeads` sends it (geth's header JSON), serialized once. */
  headerJson(): string;
  /** The block's logs in order; read from the store on first use. */
  logs(): Promise<readonly FeedLog[]>;
}

/** One move of the head: blocks that left the canonical chain (newest first), then those that joined (oldest first). */
export interface ChainUpdate {
  readonly removed: readonly FeedBlock[];
  readonly added: readonly FeedBlock[];
}

export type ChainListener = (update: ChainUpdate) => void | Promise<void>;

export interface ChainFeedOptions {
  /** Reports a failure to read an update (the feed goes on with the next head). */
  onError?: (err: unknown) => void;
}

/** The chain feed of one network; see the module comment. */
export class ChainFeed {
  private readonly listeners = new Set<ChainListener>();
  private last: Head | undefined;
  private started = false;
  private running = false;
  private again = false;
  private idle: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: ChainStore,
    private readonly opts: ChainFeedOptions = {},
  ) {}

  /** Adds a listener; returns its removal. */
  listen(listener: ChainListener): () => void {
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
    const update: ChainUpdate = {
      removed: change.removed.map((h) => feedBlock(this.store, h)),
      added: change.added.map((h) => feedBlock(this.store, h)),
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

/** A block as the feed hands it out: its logs read from the store on first use. */
export function feedBlock(store: ChainStore, header: BlockHeader): FeedBlock {
  const hash = header.hash();
  let headerJson: string | undefined;
  let logs: Promise<FeedLog[]> | undefined;
  return {
    header,
    hash,
    hashHex: bytesToData(hash),
    headerJson: () => {
      headerJson ??= JSON.stringify(formatHeader(header));
      return headerJson;
    },
    logs: () => {
      logs ??= readLogs(store, header, hash);
      return logs;
    },
  };
}

async function readLogs(store: ChainStore, header: BlockHeader, hash: Uint8Array): Promise<FeedLog[]> {
  const [txHashes, receipts] = await Promise.all([store.txHashes(hash), store.receipts(hash)]);
  if (!txHashes || !receipts) return [];
  const out: FeedLog[] = [];
  let logIndex = 0;
  receipts.forEach((receipt, txIndex) => {
    for (const log of receipt.logs) {
      out.push(
        feedLog(log, {
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

function feedLog(log: StoredLog, at: LogPosition): FeedLog {
  const rendered: [RpcLog | undefined, RpcLog | undefined] = [undefined, undefined];
  const json: [string | undefined, string | undefined] = [undefined, undefined];
  const rpc = (removed: boolean): RpcLog => {
    const i = removed ? 1 : 0;
    rendered[i] ??= formatLog(log, at, removed);
    return rendered[i];
  };
  return {
    log,
    rpc,
    json: (removed) => {
      const i = removed ? 1 : 0;
      json[i] ??= JSON.stringify(rpc(removed));
      return json[i];
    },
  };
}
