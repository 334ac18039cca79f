import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../config/settings.js';
import { STARKNET_LIVE_FORMAT } from '../../methods/starknet/_shared/liveFormat.js';
import type { StarknetBlockInput } from '../../starknet/block.js';
import { prepareBlock } from '../../starknet/blockOps.js';
import { eventConstraints } from '../../starknet/eventMatcher.js';
import { feltToBytes } from '../../starknet/felt.js';
import { openStarknetStore, type StarknetStore } from '../../starknet/store.js';
import type { SubscriberChannel } from '../channel.js';
import { StarknetFeed } from './starknetFeed.js';
import type { CatchUp } from './subscriptionHub.js';
import { StarknetSubscriptionHub } from './subscriptionHub.js';

/** The Starknet block cache's size: the setting's default. */
const STORE_BLOCK_CACHE = SETTINGS.starknet.blockCacheEntries.default;

/** Block `n` of branch `branch`: two events, from contracts 0xa and 0xb, each with key n. */
function block(n: number, branch = 'a', parentBranch = branch): StarknetBlockInput {
  const hash = (b: string, i: number) => `0x${b}${i.toString(16).padStart(4, '0')}`;
  return {
    number: n,
    hash: hash(branch, n),
    parentHash: n === 0 ? '0x0' : hash(parentBranch, n - 1),
    timestamp: 1000 + n,
    status: 'ACCEPTED_ON_L2',
    transactions: [
      {
        hash: `0x7${n}`,
        events: [
          { fromAddress: '0xa', keys: [`0x${n}`], data: [] },
          { fromAddress: '0xb', keys: [`0x${n}`], data: ['0x1'] },
        ],
      },
    ],
  };
}

/** A channel that records the frames sent to it; `accept` frames are taken, later ones refused (a closed socket). */
function channel(accept = Number.POSITIVE_INFINITY): SubscriberChannel & { frames: Array<{ method: string; id: string; result: unknown }>; close(): void } {
  const closers: Array<() => void> = [];
  let open = true;
  const frames: Array<{ method: string; id: string; result: unknown }> = [];
  return {
    frames,
    send(frame) {
      if (!open || frames.length >= accept) return false;
      const m = JSON.parse(frame);
      frames.push({ method: m.method, id: m.params.subscription_id, result: m.params.result });
      return true;
    },
    onClose: (fn) => void closers.push(fn),
    isOpen: () => open,
    close() {
      open = false;
      for (const fn of closers.splice(0)) fn();
    },
  };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function setup(blocks: number): Promise<{ store: StarknetStore; feed: StarknetFeed; hub: StarknetSubscriptionHub }> {
  const dir = mkdtempSync(join(tmpdir(), 'tracenode-snhub-'));
  dirs.push(dir);
  const store = await openStarknetStore(dir, { create: true, blockCacheEntries: STORE_BLOCK_CACHE });
  for (let n = 0; n < blocks; n++) await store.appendBlock(prepareBlock(block(n)));
  const feed = new StarknetFeed(store, STARKNET_LIVE_FORMAT.render);
  const hub = new StarknetSubscriptionHub(feed, { maxPerConnection: 3 }, STARKNET_LIVE_FORMAT.frame);
  await feed.headMoved();
  return { store, feed, hub };
}

/** Until the catch-ups queued so far have run (they start on the next turn, between feed passes). */
const settled = (feed: StarknetFeed) => new Promise<void>((r) => setImmediate(() => void feed.exclusive(async () => undefined).then(() => r())));

const onlyA = eventConstraints([feltToBytes('0xa')], []);
const noCatchUp: CatchUp = async () => undefined;

describe('StarknetSubscriptionHub', () => {
  it('subscribers of one filter share it; each gets its own id in the frame; a closed connection’s subscriptions end with it', async () => {
    const { store, feed, hub } = await setup(1);
    const c1 = channel();
    const c2 = channel();
    const heads = hub.subscribe(c1, 'newHeads', 0, noCatchUp);
    const a1 = hub.subscribe(c1, 'events', 0, noCatchUp, onlyA);
    const a2 = hub.subscribe(c2, 'events', 0, noCatchUp, onlyA);
    const all = hub.subscribe(c2, 'events', 0, noCatchUp, eventConstraints([], []));
    expect(new Set([heads, a1, a2, all]).size).toBe(4);
    expect(hub.size).toBe(4);
    await settled(feed);
    await store.appendBlock(prepareBlock(block(1)));
    await feed.headMoved();
    const ev = (from: string, data: string[]) => ({
      from_address: from,
      keys: ['0x1'],
      data,
      block_hash: '0xa0001',
      block_number: 1,
      transaction_hash: '0x71',
      transaction_index: 0,
      event_index: from === '0xa' ? 0 : 1,
    });
    expect(c1.frames.map((f) => [f.method, f.id])).toEqual([
      ['starknet_subscriptionNewHeads', heads],
      ['starknet_subscriptionEvents', a1],
    ]);
    expect(c1.frames[1].result).toEqual(ev('0xa', []));
    expect(c2.frames).toEqual([
      { method: 'starknet_subscriptionEvents', id: a2, result: ev('0xa', []) },
      { method: 'starknet_subscriptionEvents', id: all, result: ev('0xa', []) },
      { method: 'starknet_subscriptionEvents', id: all, result: ev('0xb', ['0x1']) },
    ]);
    c1.close();
    expect(hub.size).toBe(2);
    expect(hub.unsubscribe(c1, heads)).toBe(false);
    expect(hub.unsubscribe(c2, a2)).toBe(true);
    expect(hub.size).toBe(1);
    await store.close();
  });

  it('the cap per connection; a catch-up stops at a closed socket and the subscription goes live after it, without gap or repeat', async () => {
    const { store, feed, hub } = await setup(3);
    const c = channel();
    for (let i = 0; i < 3; i++) hub.subscribe(c, 'newHeads', 5, noCatchUp);
    expect(() => hub.subscribe(c, 'newHeads', 0, noCatchUp)).toThrow('too many subscriptions on this connection (limit 3)');
    const sent: number[] = [];
    const other = channel();
    const id = hub.subscribe(other, 'newHeads', 0, async (to, send) => {
      for (let n = 0; n <= to; n++) {
        sent.push(n);
        if (!send('newHeads', `{"n":${n}}`)) return;
      }
    });
    // Block 3 is written while the catch-up waits for its turn: whether the catch-up or the live
    // feed brings it, it comes once, in order.
    await store.appendBlock(prepareBlock(block(3)));
    void feed.headMoved();
    await settled(feed);
    await store.appendBlock(prepareBlock(block(4)));
    await feed.headMoved();
    expect(other.frames.map((f) => (f.result as { n?: number; block_number?: number }).n ?? (f.result as { block_number: number }).block_number)).toEqual([
      0, 1, 2, 3, 4,
    ]);
    expect(other.frames.every((f) => f.id === id)).toBe(true);
    const stopping = channel(1);
    sent.length = 0;
    hub.subscribe(stopping, 'newHeads', 0, async (to, send) => {
      for (let n = 0; n <= to; n++) {
        sent.push(n);
        if (!send('newHeads', '{}')) return;
      }
    });
    await settled(feed);
    expect(sent).toEqual([0, 1]);
    await store.close();
  });
});
