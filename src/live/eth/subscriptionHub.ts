import type { SubscriberChannel } from '../channel.js';
import { TooManySubscriptionsError } from '../errors.js';
import type { ChainFeed, ChainUpdate, FeedBlock } from './chainFeed.js';
import { newId } from './ids.js';
import type { LiveLogFilter } from './liveLogFilter.js';
import type { PendingSource } from './pendingRelay.js';

/**
 * The `eth_subscribe` subscriptions of one network, over every connection. On each chain update:
 * - `newHeads`: each block that joined the canonical chain, oldest first (after a reorganisation,
 *   the new branch's blocks); the header JSON is built once per block;
 * - `logs`: first the logs of the blocks that left the canonical chain with `removed: true`, newest
 *   block first and each block's logs last to first, so a client that applies the notifications
 *   in order undoes them before the new branch's logs arrive (geth sends the removed logs oldest
 *   first, for legacy reasons its code gives; an undo list in reverse is what a client needs);
 *   then each new block's logs in order. Subscribers with the same filter form one group: the
 *   filter runs once per log, not once per subscriber, and each log's JSON is built once.
 * - `syncing`: a subscription geth notifies when its node starts or stops syncing; this node
 *   never syncs from peers (eth_syncing is always false), so it is accepted and, as on a geth
 *   that is in sync, never fires.
 * - `newPendingTransactions`: the hashes the pending relay brings from the followed node
 *   (`pendingRelay.ts`), one notification per hash, as geth sends them.
 * One notification per header, log or hash, as geth sends them; its envelope is the hub's
 * {@link NotificationFrame}, given by `methods/` (geth's `eth_subscription`).
 */

/** What a subscription is to. */
export type SubscriptionKind = 'newHeads' | 'logs' | 'syncing' | 'newPendingTransactions';

interface Subscriber {
  readonly id: string;
  readonly channel: SubscriberChannel;
  readonly kind: SubscriptionKind;
  /** The log group it belongs to. */
  readonly group?: LogGroup;
  /** Stops what feeds it (pending transactions). */
  stop?: () => void;
}

/** Subscribers of one log filter. */
interface LogGroup {
  readonly filter: LiveLogFilter;
  readonly members: Set<Subscriber>;
}

/** The subscriptions of one connection. */
interface Connection {
  readonly subs: Map<string, Subscriber>;
}

export interface SubscriptionLimits {
  /** Most subscriptions one connection may hold ({@link TooManySubscriptionsError} past it). */
  maxPerConnection: number;
}

/** The serialized notification of subscription `id`, around a result already serialized. */
export type NotificationFrame = (id: string, result: string) => string;

/** The subscriptions of one network, fed by its chain feed (logs rendered as `L`); see the module comment. */
export class SubscriptionHub<L> {
  private readonly connections = new Map<SubscriberChannel, Connection>();
  private readonly heads = new Set<Subscriber>();
  private readonly groups = new Map<string, LogGroup>();
  private count = 0;

  constructor(
    feed: ChainFeed<L>,
    private readonly limits: SubscriptionLimits,
    private readonly frame: NotificationFrame,
  ) {
    feed.listen((update) => this.publish(update));
  }

  /** Live subscriptions, over every connection (for the metrics and tests). */
  get size(): number {
    return this.count;
  }

  /**
   * Subscribes `channel` to pending transactions relayed by `source`; returns the id. Rejects as
   * the source does when it has nothing to relay.
   */
  async subscribePending(channel: SubscriberChannel, source: PendingSource): Promise<string> {
    this.checkCap(channel);
    let sub: Subscriber | undefined;
    const early: string[] = [];
    const stop = await source.listen((hashes) => {
      for (const h of hashes) {
        if (sub === undefined) early.push(h);
        else sub.channel.send(this.frame(sub.id, `"${h}"`));
      }
    });
    // The connection may have closed, or filled its quota, while the relay started.
    try {
      if (!channel.isOpen()) throw new Error('the connection closed');
      const id = this.subscribe(channel, 'newPendingTransactions');
      sub = this.connections.get(channel)?.subs.get(id);
      if (sub === undefined) throw new Error('subscription lost');
      sub.stop = stop;
      for (const h of early.splice(0)) channel.send(this.frame(id, `"${h}"`));
      return id;
    } catch (err) {
      stop();
      throw err;
    }
  }

  private checkCap(channel: SubscriberChannel): void {
    if ((this.connections.get(channel)?.subs.size ?? 0) >= this.limits.maxPerConnection) {
      throw new TooManySubscriptionsError(this.limits.maxPerConnection);
    }
  }

  /** Opens a subscription on `channel`; returns its id. */
  subscribe(channel: SubscriberChannel, kind: SubscriptionKind, filter?: LiveLogFilter): string {
    this.checkCap(channel);
    const conn = this.connection(channel);
    let group: LogGroup | undefined;
    if (kind === 'logs') {
      if (filter === undefined) throw new Error('a logs subscription needs a filter');
      group = this.groups.get(filter.key);
      if (group === undefined) {
        group = { filter, members: new Set() };
        this.groups.set(filter.key, group);
      }
    }
    const sub: Subscriber = { id: newId(), channel, kind, group };
    conn.subs.set(sub.id, sub);
    if (kind === 'newHeads') this.heads.add(sub);
    group?.members.add(sub);
    this.count++;
    return sub.id;
  }

  /** Ends a subscription of `channel`; false when it has none with that id. */
  unsubscribe(channel: SubscriberChannel, id: string): boolean {
    const conn = this.connections.get(channel);
    const sub = conn?.subs.get(id);
    if (conn === undefined || sub === undefined) return false;
    this.drop(conn, sub);
    return true;
  }

  private connection(channel: SubscriberChannel): Connection {
    let conn = this.connections.get(channel);
    if (conn === undefined) {
      const created: Connection = { subs: new Map() };
      conn = created;
      this.connections.set(channel, created);
      channel.onClose(() => {
        for (const sub of [...created.subs.values()]) this.drop(created, sub);
        this.connections.delete(channel);
      });
    }
    return conn;
  }

  private drop(conn: Connection, sub: Subscriber): void {
    conn.subs.delete(sub.id);
    sub.stop?.();
    this.heads.delete(sub);
    const group = sub.group;
    if (group !== undefined) {
      group.members.delete(sub);
      if (group.members.size === 0) this.groups.delete(group.filter.key);
    }
    this.count--;
  }

  private async publish(update: ChainUpdate<L>): Promise<void> {
    if (this.groups.size > 0) {
      for (const block of update.removed) await this.publishLogs(block, true);
    }
    for (const block of update.added) {
      if (this.heads.size > 0) {
        const header = block.headerJson();
        for (const sub of [...this.heads]) sub.channel.send(this.frame(sub.id, header));
      }
      if (this.groups.size > 0) await this.publishLogs(block, false);
    }
  }

  private async publishLogs(block: FeedBlock<L>, removed: boolean): Promise<void> {
    const groups = [...this.groups.values()].filter((g) => g.filter.mayMatchBlock(block.header));
    if (groups.length === 0) return;
    const logs = await block.logs();
    for (let i = 0; i < logs.length; i++) {
      const log = logs[removed ? logs.length - 1 - i : i];
      for (const group of groups) {
        if (!group.filter.matches(log.log)) continue;
        const json = log.json(removed);
        for (const sub of [...group.members]) sub.channel.send(this.frame(sub.id, json));
      }
    }
  }
}
