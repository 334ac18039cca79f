import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { quiet } from '../../../test/helpers/until.js';
import { SETTINGS } from '../../config/settings.js';
import { STARKNET_LIVE_FORMAT } from '../../methods/starknet/_shared/liveFormat.js';
import type { StarknetBlockInput } from '../../starknet/block.js';
import { prepareBlock } from '../../starknet/blockOps.js';
import { openStarknetStore, type StarknetStore } from '../../starknet/store.js';
import { StarknetFeed, type StarknetUpdate } from './starknetFeed.js';

/** The Starknet block cache's size: the setting's default. */
const STORE_BLOCK_CACHE = SETTINGS.starknet.blockCacheEntries.default;

/** Block `n` of branch `branch` (its hash says both), one event from contract 0xc0 with key n. */
function block(n: number, branch: string, parentBranch = branch): StarknetBlockInput {
  const hash = (b: string, i: number) => `0x${b}${i.toString(16).padStart(4, '0')}`;
  return {
    number: n,
    hash: hash(branch, n),
    parentHash: n === 0 ? '0x0' : hash(parentBranch, n - 1),
    timestamp: 1000 + n,
    status: 'ACCEPTED_ON_L2',
    fields: { newRoot: `0x${n}f` },
    transactions: [{ hash: `0x7${n}`, events: [{ fromAddress: '0xc0', keys: [`0x${n}`], data: [] }] }],
  };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function store(): Promise<StarknetStore> {
  const dir = mkdtempSync(join(tmpdir(), 'tracenode-snfeed-'));
  dirs.push(dir);
  return openStarknetStore(dir, { create: true, blockCacheEntries: STORE_BLOCK_CACHE });
}

/** What an update says, in short: removed range, then added blocks as `number:hash`. */
function summary(u: StarknetUpdate): { removed?: string; added: string[] } {
  const added = u.added.map((b) => `${b.block.number}:${b.block.hash}`);
  return u.removed ? { removed: u.removed.json(), added } : { added };
}

describe('StarknetFeed', () => {
  it('announces appended blocks once, folding a burst into one update; nothing from before it started', async () => {
    const s = await store();
    for (const n of [0, 1]) await s.appendBlock(prepareBlock(block(n, 'a')));
    const feed = new StarknetFeed(s, STARKNET_LIVE_FORMAT.render);
    const seen: ReturnType<typeof summary>[] = [];
    feed.listen((u) => void seen.push(summary(u)));
    await feed.headMoved();
    expect(feed.head()).toEqual({ number: 1, hash: '0xa0001' });
    for (const n of [2, 3]) await s.appendBlock(prepareBlock(block(n, 'a')));
    await Promise.all([feed.headMoved(), feed.headMoved()]);
    await feed.headMoved();
    expect(seen).toEqual([{ added: ['2:0xa0002', '3:0xa0003'] }]);
    expect((await s.blockEvents(3)).map((e) => e.keys)).toEqual([['0x3']]);
    await s.close();
  });

  it('a reorganisation to a shorter branch names the announced blocks it removed (lowest, highest), then the new branch; header and event JSON come out once', async () => {
    const s = await store();
    for (const n of [0, 1, 2, 3]) await s.appendBlock(prepareBlock(block(n, 'a')));
    const feed = new StarknetFeed(s, STARKNET_LIVE_FORMAT.render);
    const seen: StarknetUpdate[] = [];
    feed.listen((u) => void seen.push(u));
    await feed.headMoved();
    // Blocks 2 and 3 replaced by one block 2 of branch b.
    await s.switchBranch(1, [prepareBlock(block(2, 'b', 'a'))]);
    await feed.headMoved();
    expect(seen.map(summary)).toEqual([
      {
        removed: JSON.stringify({ starting_block_hash: '0xa0002', starting_block_number: 2, ending_block_hash: '0xa0003', ending_block_number: 3 }),
        added: ['2:0xb0002'],
      },
    ]);
    const [b2] = seen[0].added;
    expect(b2.headerJson()).toBe(b2.headerJson());
    expect(JSON.parse(b2.headerJson())).toMatchObject({ block_hash: '0xb0002', parent_hash: '0xa0001', block_number: 2, new_root: '0x2f', timestamp: 1002 });
    const [ev] = await b2.events();
    expect(JSON.parse(ev.json())).toEqual({
      from_address: '0xc0',
      keys: ['0x2'],
      data: [],
      block_hash: '0xb0002',
      block_number: 2,
      transaction_hash: '0x72',
      transaction_index: 0,
      event_index: 0,
    });
    expect(await b2.events()).toBe(await b2.events());
    // Growing again on the new branch: no removal.
    await s.appendBlock(prepareBlock(block(3, 'b')));
    await feed.headMoved();
    expect(summary(seen[1])).toEqual({ added: ['3:0xb0003'] });
    await s.close();
  });

  it('exclusive tasks run between two passes: a pass waits for the task', async () => {
    const s = await store();
    await s.appendBlock(prepareBlock(block(0, 'a')));
    const feed = new StarknetFeed(s, STARKNET_LIVE_FORMAT.render);
    await feed.headMoved();
    const order: string[] = [];
    feed.listen(() => void order.push('update'));
    let release!: () => void;
    const task = feed.exclusive(async () => {
      order.push('task start');
      await new Promise<void>((r) => (release = r));
      order.push('task end');
    });
    await s.appendBlock(prepareBlock(block(1, 'a')));
    const pass = feed.headMoved();
    await quiet(20); // the pass must not run its update while the task holds the feed
    release();
    await Promise.all([task, pass]);
    expect(order).toEqual(['task start', 'task end', 'update']);
    await s.close();
  });
});
