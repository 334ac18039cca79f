import type { BlockHeader } from '@ethereumjs/block';
import { describe, expect, it } from 'vitest';
import type { StoredLog } from '../../chain/receipts.js';
import { liveLogFilter } from '../../methods/eth/_shared/liveLogFilter.js';
import { FilterNotFoundError } from '../errors.js';
import type { ChainFeed, ChainListener, ChainUpdate, FeedBlock, FeedLog } from './chainFeed.js';
import { FilterStore } from './filterStore.js';

/** A feed the test drives by hand. */
function handFeed(): { feed: ChainFeed<Rendered>; push(update: ChainUpdate<Rendered>): Promise<void> } {
  const listeners: ChainListener<Rendered>[] = [];
  const feed = { listen: (l: ChainListener<Rendered>) => listeners.push(l) } as unknown as ChainFeed<Rendered>;
  return { feed, push: async (u) => void (await Promise.all(listeners.map((l) => l(u)))) };
}

const byte = (b: number, n: number) => new Uint8Array(n).fill(b);

/** A log as this test renders it. */
interface Rendered {
  block: number;
  index: number;
  emitter: number;
  removed: boolean;
}

/** Block `n` with one log per entry of `emitters` (the emitter's address is 20 bytes of that value). */
function block(n: number, emitters: number[]): FeedBlock<Rendered> {
  const logs: FeedLog<Rendered>[] = emitters.map((e, i) => {
    const log: StoredLog = [byte(e, 20), [], byte(i, 1)];
    const rendered = (removed: boolean): Rendered => ({ block: n, index: i, emitter: e, removed });
    return { log, rendered, json: (removed: boolean) => JSON.stringify(rendered(removed)) };
  });
  return {
    header: { number: BigInt(n), logsBloom: byte(0xff, 256) } as unknown as BlockHeader,
    hash: byte(n, 32),
    hashHex: `0x${n}`,
    headerJson: () => '{}',
    logs: async () => logs,
  };
}

const LIMITS = { maxPerKey: 3, timeoutMs: 15 * 60_000, maxChanges: 5 };

describe('FilterStore', () => {
  it('block and log filters collect what the feed announces; a reorganisation gives the dropped logs first, newest first', async () => {
    const { feed, push } = handFeed();
    const store = new FilterStore(feed, { ...LIMITS, maxChanges: 10 });
    const blocks = store.installBlocks('k');
    const all = store.installLogs('k', { addresses: [], topics: [] }, liveLogFilter({ addresses: [], topics: [] }));
    const onlySeven = store.installLogs('k', { addresses: [byte(7, 20)], topics: [] }, liveLogFilter({ addresses: [byte(7, 20)], topics: [] }));
    await push({ removed: [], added: [block(1, [7, 8]), block(2, [7])] });
    await push({ removed: [block(2, [7]), block(1, [7, 8])], added: [block(1, [9]), block(2, []), block(3, [7])] });
    expect(store.takeChanges('k', blocks)).toEqual(['0x1', '0x2', '0x1', '0x2', '0x3']);
    expect(store.takeChanges('k', all)).toEqual([
      { block: 1, index: 0, emitter: 7, removed: false },
      { block: 1, index: 1, emitter: 8, removed: false },
      { block: 2, index: 0, emitter: 7, removed: false },
      { block: 2, index: 0, emitter: 7, removed: true },
      { block: 1, index: 1, emitter: 8, removed: true },
      { block: 1, index: 0, emitter: 7, removed: true },
      { block: 1, index: 0, emitter: 9, removed: false },
      { block: 3, index: 0, emitter: 7, removed: false },
    ]);
    expect(store.takeChanges('k', onlySeven)).toHaveLength(5);
    expect(store.takeChanges('k', all)).toEqual([]);
    store.close();
  });

  it('a filter belongs to its key: another key is told filter not found and cannot remove it', () => {
    const { feed } = handFeed();
    const store = new FilterStore(feed, LIMITS);
    const id = store.installBlocks('alice');
    expect(() => store.takeChanges('bob', id)).toThrow(FilterNotFoundError);
    expect(store.uninstall('bob', id)).toBe(false);
    expect(store.takeChanges('alice', id)).toEqual([]);
    expect(store.uninstall('alice', id)).toBe(true);
    expect(() => store.takeChanges('alice', id)).toThrow('filter not found');
    store.close();
  });

  it('expiry: a filter not polled for the timeout is gone; each poll renews it; expired filters free the key’s slots', () => {
    const { feed } = handFeed();
    let now = 1_000_000;
    const store = new FilterStore(feed, LIMITS, () => now);
    const polled = store.installBlocks('k');
    const idle = store.installBlocks('k');
    store.installBlocks('k');
    expect(() => store.installBlocks('k')).toThrow('too many filters for this key (limit 3); uninstall unused ones');
    now += LIMITS.timeoutMs - 1;
    store.takeChanges('k', polled);
    now += 2; // idle: timeout + 1 ms since its last poll; polled: 2 ms
    expect(() => store.takeChanges('k', idle)).toThrow(FilterNotFoundError);
    expect(store.takeChanges('k', polled)).toEqual([]);
    // The third one, never polled, expired too: at the cap it is swept to make room.
    store.installBlocks('k');
    store.installBlocks('k');
    expect(store.size).toBe(3);
    now += LIMITS.timeoutMs + 1;
    store.sweep();
    expect(store.size).toBe(0);
    store.close();
  });

  it('a filter that collects more than maxChanges between polls is removed, so its next poll says filter not found', async () => {
    const { feed, push } = handFeed();
    const store = new FilterStore(feed, LIMITS);
    const id = store.installBlocks('k');
    await push({ removed: [], added: [1, 2, 3, 4, 5].map((n) => block(n, [])) });
    expect(store.takeChanges('k', id)).toHaveLength(5);
    await push({ removed: [], added: [1, 2, 3, 4, 5, 6].map((n) => block(n, [])) });
    expect(() => store.takeChanges('k', id)).toThrow(FilterNotFoundError);
    store.close();
  });
});
