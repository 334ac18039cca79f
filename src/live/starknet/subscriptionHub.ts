import { randomInt } from 'node:crypto';
import type { EventConstraints } from '../../starknet/eventMatcher.js';
import { eventMatcher } from '../../starknet/eventMatcher.js';
import type { StoredEvent } from '../../starknet/eventRecord.js';
import type { SubscriberChannel } from '../channel.js';
import { TooManySubscriptionsError } from '../errors.js';
import type { FeedBlock, StarknetFeed, StarknetUpdate } from './starknetFeed.js';

/**
 * The Starknet subscriptions of one network, over every connection (Starknet WebSocket spec
 * v0.8, `api/starknet_ws_api.json`, as eqlabs/pathfinder serves it). On each feed update:
 * - first, when announced blocks left the chain, `starknet_subscriptionReorg` with the removed
 *   range to every subscriber, heads and events alike (pathfinder sends it to both);
 * - then for each new block, oldest first: `starknet_subscriptionNewHeads` with its
 *   BLOCK_HEADER, and `starknet_subscriptionEvents` with each matching EMITTED_EVENT in order.
 * Subscribers with the same filter form one group: the filter runs once per event, and each
 * header's, event's and reorganisation's JSON is built once and shared.
 *
 * A subscription may start from a past block (`block_id`): the blocks from there to the feed's
 * head are sent first (its catch-up, run between two feed updates, so that nothing is missed or
 * sent twice), then it goes live. Without `block_id` it starts at the head, which it is sent
 * first, as pathfinder does.
 *
 * Each notification's envelope is the hub's {@link StarknetFrame}, given by `methods/` (the
 * spec's `starknet_subscription…` methods).
 */

/** What a subscription is to. */
export type StarknetSubscriptionKind = 'newHeads' | 'events';

interface Subscriber {
  readonly id: string;
  readonly channel: SubscriberChannel;
  readonly kind: StarknetSubscriptionKind;
  readonly group?: EventGroup;
  /** Sent live updates once its catch-up is done. */
  live: boolean;
  /** Live blocks below this were (or will be) sent by its catch-up; 0 once a reorganisation was sent. */
  from: number;
}

/** Subscribers of one event filter. */
interface EventGroup {
  readonly key: string;
  readonly matches: (ev: StoredEvent) => boolean;
  readonly members: Set<Subscriber>;
}

/** What a subscription's catch-up sends, given the feed's head: it calls `send` with each result JSON. */
export type CatchUp = (toBlock: number, send: (kind: StarknetNotification, result: string) => boolean) => Promise<void>;

/** What a notification carries: a new head, an event, or a reorganisation. */
export type StarknetNotification = 'newHeads' | 'events' | 'reorg';

/** The serialized notification of kind `kind` to subscription `id`, around a result already serialized. */
export type StarknetFrame = (kind: StarknetNotification, id: string, result: string) => string;

export interface StarknetSubscriptionLimits {
  /** Most subscriptions one connection may hold ({@link TooManySubscriptionsError} past it), as for eth_subscribe. */
  maxPerConnection: number;
}

export interface StarknetHubOptions {
  /** Reports a catch-up that failed (its subscription ends). */
  onError?: (err: unknown) => void;
}

/**
 * A new subscription id: a decimal string, as pathfinder's (a counter there; random here, so one
 * client cannot guess another's), below 2^53 so that clients that read it as a number (the
 * spec's `starknet_unsubscribe` types it as an integer) keep it exact.
 */
export function newSubscriptionId(): string {
  return String(randomInt(1, 2 ** 48) * 32 + randomInt(0, 32));
}

/** The Starknet subscriptions of one network; see the module comment. */
export class StarknetSubscriptionHub {
  private readonly connections = new Map<SubscriberChannel, Map<string, Subscriber>>();
  private readonly heads = new Set<Subscriber>();
  private readonly groups = new Map<string, EventGroup>();
  private count = 0;

  constructor(
    private readonly feed: StarknetFeed,
    private readonly limits: StarknetSubscriptionLimits,
    private readonly frame: StarknetFrame,
    private readonly opts: StarknetHubOptions = {},
  ) {
    feed.listen((update) => this.publish(update));
  }

  /** Live subscriptions, over every connection (for the metrics and tests). */
  get size(): number {
    return this.count;
  }

  /**
   * Opens a subscription on `channel` from block `from` (catch-up by `catchUp` up to the feed's
   * head, after the answer carrying its id has gone out); returns the id. Events subscriptions
   * pass their filter's constraints.
   */
  subscribe(channel: SubscriberChannel, kind: StarknetSubscriptionKind, from: number, catchUp: CatchUp, constraints?: EventConstraints): string {
    let subs = this.connections.get(channel);
    if ((subs?.size ?? 0) >= this.limits.maxPerConnection) {
      throw new TooManySubscriptionsError(this.limits.maxPerConnection);
    }
    if (subs === undefined) {
      const created = new Map<string, Subscriber>();
      subs = created;
      this.connections.set(channel, created);
      channel.onClose(() => {
        for (const sub of [...created.values()]) this.drop(created, sub);
        this.connections.delete(channel);
      });
    }
    let group: EventGroup | undefined;
    if (kind === 'events') {
      if (constraints === undefined) throw new Error('an events subscription needs a filter');
      const key = JSON.stringify(constraints);
      group = this.groups.get(key);
      if (group === undefined) {
        group = { key, matches: eventMatcher(constraints), members: new Set() };
        this.groups.set(key, group);
      }
    }
    let id = newSubscriptionId();
    while (subs.has(id)) id = newSubscriptionId();
    const sub: Subscriber = { id, channel, kind, group, live: false, from };
    subs.set(id, sub);
    if (kind === 'newHeads') this.heads.add(sub);
    group?.members.add(sub);
    this.count++;
    const owner = subs;
    // After this call's answer: the answer goes out when the handler's promise settles, which
    // is before the next turn of the event loop.
    setImmediate(() => {
      void this.feed
        .exclusive(async () => {
          if (!owner.has(id)) return;
          const head = this.feed.head();
          if (head !== undefined && head.number >= from) {
            await catchUp(head.number, (kind, result) => owner.has(id) && channel.send(this.frame(kind, id, result)));
          }
          sub.live = true;
        })
        .catch((err: unknown) => {
          this.opts.onError?.(err);
          if (owner.has(id)) this.drop(owner, sub);
        });
    });
    return id;
  }

  /** Ends a subscription of `channel`; false when it has none with that id. */
  unsubscribe(channel: SubscriberChannel, id: string): boolean {
    const subs = this.connections.get(channel);
    const sub = subs?.get(id);
    if (subs === undefined || sub === undefined) return false;
    this.drop(subs, sub);
    return true;
  }

  private drop(subs: Map<string, Subscriber>, sub: Subscriber): void {
    if (!subs.delete(sub.id)) return;
    this.heads.delete(sub);
    const group = sub.group;
    if (group !== undefined) {
      group.members.delete(sub);
      if (group.members.size === 0) this.groups.delete(group.key);
    }
    this.count--;
  }

  private async publish(update: StarknetUpdate): Promise<void> {
    if (update.removed !== undefined) {
      const json = update.removed.json();
      for (const sub of this.everyLive()) {
        sub.from = 0;
        sub.channel.send(this.frame('reorg', sub.id, json));
      }
    }
    for (const block of update.added) {
      if (this.heads.size > 0) {
        const header = block.headerJson();
        for (const sub of [...this.heads]) {
          if (sub.live && block.block.number >= sub.from) sub.channel.send(this.frame('newHeads', sub.id, header));
        }
      }
      if (this.groups.size > 0) await this.publishEvents(block);
    }
  }

  private *everyLive(): Generator<Subscriber> {
    for (const sub of [...this.heads]) if (sub.live) yield sub;
    for (const group of [...this.groups.values()]) for (const sub of [...group.members]) if (sub.live) yield sub;
  }

  private async publishEvents(block: FeedBlock): Promise<void> {
    if (block.block.eventCount === 0) return;
    const number = block.block.number;
    const groups = [...this.groups.values()].filter((g) => [...g.members].some((s) => s.live && number >= s.from));
    if (groups.length === 0) return;
    for (const ev of await block.events()) {
      for (const group of groups) {
        if (!group.matches(ev.event)) continue;
        const json = ev.json();
        for (const sub of [...group.members]) {
          if (sub.live && number >= sub.from) sub.channel.send(this.frame('events', sub.id, json));
        }
      }
    }
  }
}
