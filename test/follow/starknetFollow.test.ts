import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/settings.js';
import { openDatabase } from '../../src/db/database.js';
import { StarknetFollower } from '../../src/follow/starknetFollower.js';
import { Upstream } from '../../src/follow/upstream.js';
import { STARKNET_CHAIN_ID_KEY } from '../../src/starknet/keys.js';
import { openStarknetStore, type StarknetStore } from '../../src/starknet/store.js';
import { rawCall } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { runCli, type ServeCli, startServeCli } from '../helpers/cli.js';
import { rawHttp } from '../helpers/rpcClient.js';
import {
  eventsOf,
  type FixtureBlock,
  type FixtureEvent,
  fixtureBlocks,
  referenceMatch,
  type SampleFilter,
  sampleFilters,
  specFilter,
} from '../helpers/starknetFixtures.js';
import { stateUpdatesOf } from '../helpers/starknetState.js';
import { linkedChain, StarknetUpstream } from '../helpers/starknetUpstream.js';
import { testConfig } from '../helpers/testConfig.js';
import { quiet, until } from '../helpers/until.js';

/** The Starknet block cache's size: the setting's default. */
const STORE_BLOCK_CACHE = SETTINGS.starknet.blockCacheEntries.default;

/**
 * Following a Starknet upstream: a small upstream serves the real mainnet blocks of the fixtures
 * as one linked chain (block i of the file is block number i), first 0..3, then 0..6, then with
 * the last block replaced once (a reorganisation). tracenode follows it — `tracenode follow` from
 * an empty datadir, then `serve --follow` over WebSocket — and starknet_getEvents answers what the
 * fixture's expected counts and an independent matcher over the upstream's chain say, page by
 * page. After the reorganisation the datadir holds exactly the entries an import of the final
 * chain (with its state updates) writes: nothing of the dropped block is left in any index, its
 * transactions and state entries included.
 */

const tmp = tempDir('tracenode-starknet-follow-');
const KEY = 'sn-follow-key';
const fixture = fixtureBlocks('mainnet');
const chain = linkedChain(fixture);
/** The last block replaced: its first 100 transactions only, and another hash. */
const replaced: FixtureBlock = {
  ...chain[6],
  block_hash: '0x7e57ab1e5eed06',
  transactions: chain[6].transactions.slice(0, 100),
};
const finalChain = [...chain.slice(0, 6), replaced];
let upstream: StarknetUpstream;
let serve: ServeCli | undefined;

beforeAll(async () => {
  upstream = await StarknetUpstream.start();
});

afterAll(async () => {
  serve?.child.kill('SIGKILL');
  await upstream?.stop();
  tmp.cleanup();
});

/** A sample filter of the fixture with its block range moved to the linked chain's numbers. */
function linkedFilter(f: SampleFilter['filter']): SampleFilter['filter'] {
  const out = { ...f };
  if (f.from_block !== undefined) out.from_block = fixture.findIndex((b) => b.block_number >= f.from_block!);
  if (f.to_block !== undefined) out.to_block = fixture.length - 1 - [...fixture].reverse().findIndex((b) => b.block_number <= f.to_block!);
  return out;
}

const rpc = (base: string, method: string, params: unknown) => rawCall(`${base}/v3/${KEY}`, method, params);

/** Every event of a filter, through pages of `chunk` events and their continuation tokens. */
async function allEvents(base: string, filter: Record<string, unknown>, chunk: number): Promise<FixtureEvent[]> {
  const out: FixtureEvent[] = [];
  let token: string | undefined;
  do {
    const r = await rpc(base, 'starknet_getEvents', { filter: { ...filter, chunk_size: chunk, ...(token ? { continuation_token: token } : {}) } });
    if (r.error) throw new Error(JSON.stringify(r.error));
    const page = r.result as { events: FixtureEvent[]; continuation_token?: string };
    out.push(...page.events);
    token = page.continuation_token;
  } while (token !== undefined);
  return out;
}

/** Every key and value of a datadir, hex, in key order. */
async function dump(dir: string): Promise<string[]> {
  const level = await openDatabase(dir);
  try {
    const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
    const skip = hex(STARKNET_CHAIN_ID_KEY);
    return (await level.iterator().all()).map(([k, v]) => `${hex(k)}=${hex(v)}`).filter((e) => !e.startsWith(`${skip}=`));
  } finally {
    await level.close();
  }
}

describe('Starknet following', () => {
  const datadir = join(tmp.dir, 'followed');

  it('tracenode follow: an empty datadir becomes a Starknet one and catches up with the upstream', async () => {
    upstream.setChain(chain.slice(0, 4));
    const r = await runCli(['follow', '--datadir', datadir, '--follow', upstream.httpUrl]);
    expect([r.code, r.stdout]).toEqual([0, 'follow: head is block 3 (upstream head 3)\n']);
    const again = await runCli(['follow', '--datadir', datadir, '--follow', upstream.httpUrl]);
    expect([again.code, again.stdout]).toEqual([0, r.stdout]);
  });

  it('serve --follow over WebSocket: new blocks are pushed and indexed; getEvents equals the fixture, page by page', async () => {
    serve = await startServeCli([
      '--datadir',
      datadir,
      '--port',
      '0',
      '--api-keys',
      KEY,
      '--log-level',
      'warn',
      '--follow',
      upstream.wsUrl,
      '--follow.poll-interval-ms',
      '10000',
    ]);
    const base = serve.base;
    expect((await rpc(base, 'starknet_blockNumber', [])).result).toBe(3);
    // Subscribed once following (a head announced before that is found by the next poll).
    await until(
      'following',
      async () => JSON.parse((await rawHttp(`${base}/health`, { method: 'GET' })).text).following,
      (s) => s === 'following',
    );
    upstream.setChain(chain);
    // Pushed: well before the 10 s poll.
    await until(
      'block 6',
      async () => (await rpc(base, 'starknet_blockNumber', [])).result,
      (n) => n === 6,
      8_000,
    );
    const health = JSON.parse((await rawHttp(`${base}/health`, { method: 'GET' })).text);
    expect(health).toMatchObject({ ok: true, head: { number: 6, hash: chain[6].block_hash }, upstreamHead: 6, lagBlocks: 0, following: 'following' });
    const events = eventsOf(chain);
    for (const sample of sampleFilters('mainnet')) {
      const filter = linkedFilter(sample.filter);
      const got = await allEvents(base, specFilter(filter), 256);
      expect(got.length, sample.name).toBe(sample.expected_count);
      expect(got, sample.name).toEqual(events.filter((e) => referenceMatch(filter, e)));
    }
  });

  it('the last block replaced once: its events are gone from every index, the new one’s are served', async () => {
    const base = serve!.base;
    upstream.setChain(finalChain);
    const atHead = () => rpc(base, 'starknet_getEvents', { filter: { from_block: { block_hash: replaced.block_hash }, chunk_size: 1 } });
    await until('switched', atHead, (r) => r.error === undefined, 8_000);
    // The dropped block is no longer known by hash (its events are gone with it).
    expect((await rpc(base, 'starknet_getEvents', { filter: { from_block: { block_hash: chain[6].block_hash }, chunk_size: 1 } })).error).toMatchObject({
      code: 24,
    });
    const events = eventsOf(finalChain);
    const all = await allEvents(base, {}, 1000);
    // The fixture's 2,834 events, less block 619596's 1,760, plus the kept transactions' events.
    const kept = replaced.transactions.reduce((n, t) => n + t.receipt.events.length, 0);
    expect(all.length).toBe(2834 - 1760 + kept);
    for (const sample of sampleFilters('mainnet')) {
      const filter = linkedFilter(sample.filter);
      expect(await allEvents(base, specFilter(filter), 100), sample.name).toEqual(events.filter((e) => referenceMatch(filter, e)));
    }
    serve!.child.kill('SIGTERM');
    expect(await serve!.exited).toBe(0);
    expect(serve!.output()).toContain('upstream reorganised');
    serve = undefined;
    // The same entries as an import of the final chain.
    const file = join(tmp.dir, 'final.ndjson');
    writeFileSync(file, `${finalChain.map((b) => JSON.stringify(b)).join('\n')}\n`);
    // With the state updates the upstream served (the follower stored each block's).
    const updates = join(tmp.dir, 'final-state-updates.ndjson');
    writeFileSync(
      updates,
      `${stateUpdatesOf(finalChain)
        .map((u) => JSON.stringify(u))
        .join('\n')}\n`,
    );
    const imported = join(tmp.dir, 'imported');
    expect((await runCli(['import-starknet', '--datadir', imported, '--state-updates', updates, file])).code).toBe(0);
    const [followed, fresh] = [await dump(datadir), await dump(imported)];
    expect(followed.length).toBe(fresh.length);
    expect(followed).toEqual(fresh);
  });
});

describe('Starknet following: faults', () => {
  const log = { lines: [] as string[] };
  const logger = {
    info: (_: object, m: string) => log.lines.push(`info ${m}`),
    warn: (o: object, m: string) => log.lines.push(`warn ${m} ${JSON.stringify(o)}`),
    error: (o: object, m: string) => log.lines.push(`error ${m} ${JSON.stringify(o)}`),
    debug: () => undefined,
  };
  const settings = { ...testConfig().follow, pollIntervalMs: 20, retryMaxMs: 100, maxReorgDepth: 2 };

  /** A follower of `url` into `store`, with the fast settings above. */
  const followerOf = (store: StarknetStore, url: string) =>
    new StarknetFollower(store, new Upstream(url, { requestTimeoutMs: 2000 }), { settings, importSettings: testConfig().import, log: logger });

  async function following(name: string, blocks: FixtureBlock[]) {
    upstream.setChain(blocks);
    const store = await openStarknetStore(join(tmp.dir, name), { create: true, blockCacheEntries: STORE_BLOCK_CACHE });
    const follower = followerOf(store, upstream.httpUrl);
    follower.start();
    await until(
      'caught up',
      async () => (await store.head())?.number,
      (n) => n === blocks.length - 1,
    );
    return { store, follower };
  }

  it('a block that does not link to ours is not written; following resumes when the upstream is right again', async () => {
    log.lines.length = 0;
    const { store, follower } = await following('unlinked', chain.slice(0, 3));
    upstream.setChain([...chain.slice(0, 3), { ...chain[3], parent_hash: '0x1234' }]);
    const status = await until(
      'retrying',
      async () => follower.status(),
      (s) => s.state === 'retrying',
    );
    expect(status.error).toBe('upstream block 3: parent_hash 0x1234 is not the hash of our block 2');
    await quiet(300); // nothing written meanwhile, and one line
    expect((await store.head())?.number).toBe(2);
    expect(log.lines.filter((l) => l.startsWith('warn upstream: retrying'))).toHaveLength(1);
    upstream.setChain(chain.slice(0, 4));
    await until(
      'block 3',
      async () => (await store.head())?.hash,
      (h) => h === chain[3].block_hash,
    );
    await follower.stop();
    await store.close();
  });

  it('another chain id, or a reorganisation deeper than follow.maxReorgDepth, stops following and writes nothing', async () => {
    const { store, follower } = await following('deep', chain.slice(0, 5));
    // Blocks 2..4 replaced: three dropped, the limit is two.
    const other = (b: FixtureBlock, i: number): FixtureBlock => ({ ...b, block_hash: `0x${(0xdead00 + i).toString(16)}` });
    const forked = [
      ...chain.slice(0, 2),
      other(chain[2], 2),
      { ...other(chain[3], 3), parent_hash: '0xdead02' },
      { ...other(chain[4], 4), parent_hash: '0xdead03' },
    ];
    upstream.setChain(forked);
    const status = await until(
      'stopped',
      async () => follower.status(),
      (s) => s.state === 'stopped',
    );
    expect(status.error).toBe('reorganisation deeper than follow.maxReorgDepth (2) below block 4');
    expect((await store.head())?.hash).toBe(chain[4].block_hash);
    await follower.stop();
    const sepolia = await StarknetUpstream.start('0x534e5f5345504f4c4941');
    sepolia.setChain(chain.slice(0, 5));
    const wrong = followerOf(store, sepolia.httpUrl);
    await expect(wrong.runOnce()).rejects.toThrow("the upstream's chain id is 0x534e5f5345504f4c4941, this datadir followed 0x534e5f4d41494e");
    await sepolia.stop();
    await store.close();
  });

  it('the l1_accepted block follows the upstream’s tag; an upstream without the tag is asked once', async () => {
    const onL2 = chain.slice(0, 5).map((b) => ({ ...b, status: 'ACCEPTED_ON_L2' }));
    upstream.l1Accepted = undefined;
    log.lines.length = 0;
    const before = upstream.calls.get('starknet_getBlockWithTxHashes') ?? 0;
    const first = await following('l1', onL2);
    await quiet(200); // no tag learnt
    expect(await first.store.l1AcceptedNumber()).toBeUndefined();
    // One question about the tag, none more (a fresh datadir has no genesis to check).
    expect(log.lines.filter((l) => l.includes('no l1_accepted block tag'))).toHaveLength(1);
    const asked = upstream.calls.get('starknet_getBlockWithTxHashes')!;
    await quiet(200); // not asked again
    expect(upstream.calls.get('starknet_getBlockWithTxHashes')).toBe(asked);
    expect(asked - before).toBe(1);
    await first.follower.stop();
    await first.store.close();
    upstream.l1Accepted = 2;
    const store = await openStarknetStore(join(tmp.dir, 'l1'), { blockCacheEntries: STORE_BLOCK_CACHE });
    const follower = followerOf(store, upstream.httpUrl);
    follower.start();
    await until(
      'l1 at 2',
      () => store.l1AcceptedNumber(),
      (n) => n === 2,
    );
    upstream.l1Accepted = 4;
    await until(
      'l1 at 4',
      () => store.l1AcceptedNumber(),
      (n) => n === 4,
    );
    await follower.stop();
    await store.close();
  });
});
