import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IMPORT_STARKNET_HELP, runImportStarknet } from '../../src/cli/importStarknet.js';
import type { Config } from '../../src/config/settings.js';
import { SETTINGS } from '../../src/config/settings.js';
import { type Level, openDatabase } from '../../src/db/database.js';
import { META } from '../../src/db/keys.js';
import { closeStarknetContext, createStarknetContext, type StarknetContext, starknetMethods } from '../../src/methods/starknet.js';
import { RpcError } from '../../src/rpc/errors.js';
import { PageSizeTooBigError, TooManyKeysInFilterError } from '../../src/starknet/errors.js';
import type { PlanName } from '../../src/starknet/eventPlanner.js';
import { feltToBytes } from '../../src/starknet/felt.js';
import { type EventFilter, getEvents as storeGetEvents } from '../../src/starknet/getEvents.js';
import { importStarknetBlocks, readFileLines, StarknetImportError } from '../../src/starknet/importBlocks.js';
import { DATADIR_KIND_KEY } from '../../src/starknet/keys.js';
import { openStarknetStore, StarknetStore } from '../../src/starknet/store.js';
import {
  type FixtureEvent,
  fixtureEvents,
  referenceMatch,
  type SampleFilter,
  STARKNET_FIXTURES,
  STARKNET_NETWORKS,
  type StarknetNetwork,
  specFilter,
} from '../helpers/starknetFixtures.js';
import { testConfig } from '../helpers/testConfig.js';
import { wireError } from '../helpers/wireError.js';

/** The Starknet block cache's size: the setting's default. */
const STORE_BLOCK_CACHE = SETTINGS.starknet.blockCacheEntries.default;

/** The event limits of a configuration's `starknet` section, as a context carries them. */
const eventLimits = ({ starknet }: Config) => ({ maxChunkSize: starknet.maxChunkSize, maxKeyPositions: starknet.maxKeyPositions });
const EVENT_LIMITS = eventLimits(testConfig());

const NETWORKS = STARKNET_NETWORKS;
type Network = StarknetNetwork;

const tmp = mkdtempSync(join(tmpdir(), 'tracenode-starknet-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let dirCount = 0;
const freshDir = () => join(tmp, `d${dirCount++}`);

const getEventsMethod = starknetMethods.get('starknet_getEvents')!;
const blockNumberMethod = starknetMethods.get('starknet_blockNumber')!;

async function call(ctx: StarknetContext, params: unknown): Promise<{ events: FixtureEvent[]; continuation_token?: string }> {
  return (await getEventsMethod.call(ctx, params)) as { events: FixtureEvent[]; continuation_token?: string };
}

/** The wire error a call fails with. */
const rpcError = (ctx: StarknetContext, params: unknown, method = getEventsMethod) => wireError(method.call(ctx, params));

/** Pages through a filter; checks the page-size/token invariants on the way. */
async function pageAll(ctx: StarknetContext, filter: Record<string, unknown>, chunkSize: number): Promise<{ events: FixtureEvent[]; pages: number }> {
  const events: FixtureEvent[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const r = await call(ctx, { filter: { ...filter, chunk_size: chunkSize, ...(token ? { continuation_token: token } : {}) } });
    pages++;
    expect(r.events.length).toBeLessThanOrEqual(chunkSize);
    // A token comes exactly with a full page that more events follow.
    if (r.continuation_token !== undefined) expect(r.events.length).toBe(chunkSize);
    events.push(...r.events);
    token = r.continuation_token;
    expect(pages).toBeLessThanOrEqual(5000);
  } while (token !== undefined);
  return { events, pages };
}

const identity = (e: FixtureEvent) => `${e.block_number}/${e.transaction_index}/${e.event_index}`;

const contexts = {} as Record<Network, StarknetContext>;
const all = {} as Record<Network, FixtureEvent[]>;
const samples = {} as Record<Network, SampleFilter[]>;

beforeAll(async () => {
  for (const network of NETWORKS) {
    const dir = freshDir();
    const store = await openStarknetStore(dir, { create: true, blockCacheEntries: STORE_BLOCK_CACHE });
    await importStarknetBlocks(store, readFileLines(join(STARKNET_FIXTURES, `${network}-blocks.ndjson`)));
    contexts[network] = createStarknetContext(store, testConfig());
    all[network] = fixtureEvents(network);
    samples[network] = JSON.parse(readFileSync(join(STARKNET_FIXTURES, `${network}-expected.json`), 'utf8')).sample_filters;
  }
});
afterAll(async () => {
  for (const network of NETWORKS) {
    if (contexts[network] === undefined) continue;
    await closeStarknetContext(contexts[network]);
    await contexts[network].store.close();
  }
});

describe('starknet_getEvents: shared fixtures', () => {
  for (const network of NETWORKS) {
    describe(network, () => {
      it('imports every block and event of the fixture', async () => {
        const expected = JSON.parse(readFileSync(join(STARKNET_FIXTURES, `${network}-expected.json`), 'utf8'));
        expect(all[network].length).toBe(expected.total_events);
        const store = contexts[network].store;
        for (const b of expected.per_block) {
          const stored = await store.block(b.block_number);
          expect(stored?.hash).toBe(b.block_hash);
          expect(stored?.eventCount).toBe(b.events);
          expect(stored?.transactionCount).toBe(b.transactions);
        }
        expect(await blockNumberMethod.call(contexts[network], [])).toBe(expected.block_numbers.at(-1));
      });

      it('every README sample filter is in the expected file', () => {
        const readme = readFileSync(join(STARKNET_FIXTURES, 'README.md'), 'utf8');
        const section = readme.split(`### ${network}-blocks.ndjson`)[1].split('\n### ')[0].split('Well-known values')[0];
        const rows = [...section.matchAll(/^\| `(\{.*\})` \| (\d+) \|$/gm)].map((m) => [JSON.parse(m[1]), Number(m[2])]);
        expect(rows.length).toBe(samples[network].length);
        expect(rows).toEqual(samples[network].map((s) => [s.filter, s.expected_count]));
      });

      it.each([1, 7, 100, 1024])('every sample filter, paged with chunk_size %i, returns exactly the expected events in order', async (chunkSize) => {
        for (const sample of samples[network]) {
          const expected = all[network].filter((e) => referenceMatch(sample.filter, e));
          expect(expected.length, sample.name).toBe(sample.expected_count);
          const { events, pages } = await pageAll(contexts[network], specFilter(sample.filter), chunkSize);
          expect(events.length, sample.name).toBe(sample.expected_count);
          expect(new Set(events.map(identity)).size, `${sample.name}: duplicates`).toBe(events.length);
          expect(events, sample.name).toEqual(expected);
          expect(pages, sample.name).toBe(Math.max(1, Math.ceil(expected.length / chunkSize)));
        }
      });

      it('every applicable plan (index or scan) returns the same pages', async () => {
        const plans: PlanName[] = ['scan', 'address', 'addressKey0', 'key0', 'key1'];
        for (const sample of samples[network]) {
          const f = sample.filter;
          const filter = {
            fromBlock: f.from_block === undefined ? undefined : { number: f.from_block },
            toBlock: f.to_block === undefined ? undefined : { number: f.to_block },
            addresses: f.address ? [feltToBytes(f.address)] : [],
            keys: (f.keys ?? []).map((k) => k.map(feltToBytes)),
            chunkSize: 100,
          };
          const applicable = plans.filter(
            (p) =>
              p === 'scan' ||
              (p === 'address' && f.address) ||
              (p === 'addressKey0' && f.address && f.keys?.[0]?.length) ||
              (p.startsWith('key') && (f.keys?.[Number(p.slice(3))]?.length ?? 0) > 0),
          );
          const baseline = await storeGetEvents(contexts[network].store, filter, { plan: 'scan', limits: EVENT_LIMITS });
          for (const plan of applicable) {
            let token: string | undefined;
            let count = 0;
            do {
              const page = await storeGetEvents(contexts[network].store, { ...filter, continuationToken: token }, { plan, limits: EVENT_LIMITS });
              if (token === undefined) expect(page, `${sample.name} via ${plan}`).toEqual(baseline);
              count += page.events.length;
              token = page.continuationToken;
            } while (token);
            expect(count, `${sample.name} via ${plan}`).toBe(sample.expected_count);
          }
        }
      });
    });
  }
});

describe('starknet_getEvents: params', () => {
  const ETH = '0x49d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7';
  const STRK = '0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d';
  const TRANSFER = '0x99cd8bde557814842a3121e8ddfd433a539b8c9f14bf31ebf108d12e6196e9';
  const ctx = () => contexts.mainnet;

  it('positional [filter] equals by-name {filter}', async () => {
    const f = { address: ETH, chunk_size: 5 };
    expect(await call(ctx(), [f])).toEqual(await call(ctx(), { filter: f }));
  });

  it('result fields in spec order', async () => {
    const r = await call(ctx(), { filter: { address: ETH, chunk_size: 1 } });
    expect(Object.keys(r)).toEqual(['events', 'continuation_token']);
    expect(Object.keys(r.events[0])).toEqual([
      'from_address',
      'keys',
      'data',
      'block_hash',
      'block_number',
      'transaction_hash',
      'transaction_index',
      'event_index',
    ]);
  });

  it('address as a list is the union, in order', async () => {
    const { events } = await pageAll(ctx(), { address: [STRK, ETH] }, 1024);
    expect(events).toEqual(all.mainnet.filter((e) => e.from_address === ETH || e.from_address === STRK));
    expect(events.length).toBe(784 + 228);
  });

  it('long address and key lists (past the index stream limit) give the same events', async () => {
    const filler = Array.from({ length: 70 }, (_, i) => `0x${(i + 1).toString(16)}`);
    const expected = all.mainnet.filter((e) => e.from_address === ETH && e.keys[0] === TRANSFER);
    for (const filter of [
      { address: [...filler, ETH] },
      { address: [...filler.slice(0, 9), ETH], keys: [[...filler.slice(0, 9), TRANSFER]] },
      { address: [...filler, ETH], keys: [[...filler, TRANSFER]] },
    ]) {
      const { events } = await pageAll(ctx(), filter, 1024);
      expect(events).toEqual(filter.keys ? expected : all.mainnet.filter((e) => e.from_address === ETH));
    }
  });

  it('an empty address list or keys list filters nothing; null means omitted', async () => {
    const base = await call(ctx(), { filter: { chunk_size: 50 } });
    expect(await call(ctx(), { filter: { chunk_size: 50, address: [], keys: [] } })).toEqual(base);
    expect(await call(ctx(), { filter: { chunk_size: 50, address: null, keys: null, from_block: null, to_block: null, continuation_token: null } })).toEqual(
      base,
    );
    expect(await call(ctx(), { filter: { chunk_size: 50, keys: [[], []] } })).toEqual(base);
  });

  it('felts compare by value (leading zeros, upper case) and come back as stored', async () => {
    const padded = `0x${ETH.slice(2).toUpperCase().padStart(64, '0')}`;
    const r = await call(ctx(), { filter: { address: padded, keys: [[`0x${TRANSFER.slice(2).padStart(64, '0')}`]], chunk_size: 3 } });
    expect(r.events.map((e) => e.from_address)).toEqual([ETH, ETH, ETH]);
    expect(r.events[0].keys[0]).toBe(TRANSFER);
  });

  it('keys: positions are ANDed, values within a position ORed; fewer keys than a constrained position do not match', async () => {
    const twoKeys = all.mainnet.find((e) => e.keys.length === 2)!;
    const r = await pageAll(ctx(), { keys: [[], [twoKeys.keys[1]]] }, 1024);
    expect(r.events).toEqual(all.mainnet.filter((e) => e.keys.length >= 2 && e.keys[1] === twoKeys.keys[1]));
    const none = await call(ctx(), { filter: { keys: [[twoKeys.keys[0]], [], [TRANSFER]], chunk_size: 10 } });
    expect(none.events.filter((e) => e.keys.length < 3)).toEqual([]);
  });

  it('block_hash bounds and tags', async () => {
    const latest = { filter: { from_block: 'latest', to_block: 'latest', chunk_size: 1024 } };
    const r = await pageAll(ctx(), latest.filter, 1024);
    expect(r.events.length).toBe(1760);
    const byHash = await pageAll(
      ctx(),
      {
        from_block: { block_hash: '0x1a02cb7164d3592c3dcf9c7a7634353709ce467155f7686c37e429efe05c55f' },
        to_block: { block_hash: '0x40db218b21b6de2bc954b7457a373f5bd1d3cc58f37f1b95a72543dc021db52' },
      },
      1024,
    );
    expect(byHash.events.length).toBe(38 + 26);
    // Every fixture block is ACCEPTED_ON_L1, so l1_accepted is the latest block too.
    expect((await pageAll(ctx(), { from_block: 'l1_accepted' }, 1024)).events.length).toBe(1760);
    // No pending block on an imported node: as to_block it is latest, as from_block it is empty.
    for (const tag of ['pending', 'pre_confirmed']) {
      expect((await pageAll(ctx(), { to_block: tag }, 1024)).events.length).toBe(2834);
      expect(await call(ctx(), { filter: { from_block: tag, chunk_size: 10 } })).toEqual({ events: [] });
    }
  });

  it('from_block after to_block: empty page without token (even with a token)', async () => {
    const f = { from_block: { block_number: 65000 }, to_block: { block_number: 2240 }, chunk_size: 10 };
    expect(await call(ctx(), { filter: f })).toEqual({ events: [] });
    expect(await call(ctx(), { filter: { ...f, continuation_token: '2240-0' } })).toEqual({ events: [] });
  });

  it('a page ending on the last event of the range has no token; ending on the last event of a block with more to come has one', async () => {
    const one = { from_block: { block_number: 2240 }, to_block: { block_number: 2240 } };
    expect(await call(ctx(), { filter: { ...one, chunk_size: 38 } })).toEqual({ events: all.mainnet.filter((e) => e.block_number === 2240) });
    const first = await call(ctx(), { filter: { ...one, chunk_size: 37 } });
    expect(first.continuation_token).toBe('2240-37');
    const last = await call(ctx(), { filter: { ...one, chunk_size: 37, continuation_token: first.continuation_token } });
    expect(last).toEqual({ events: all.mainnet.filter((e) => e.block_number === 2240).slice(37) });
    const two = await call(ctx(), { filter: { from_block: { block_number: 2240 }, to_block: { block_number: 2500 }, chunk_size: 38 } });
    expect(two.continuation_token).toBe('2500-0');
  });
});

describe('starknet_getEvents: errors', () => {
  const ctx = () => contexts.mainnet;
  const ETH = '0x49d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7';
  const STRK = '0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d';
  const PAGE = { code: 31, message: 'Requested page size is too big' };
  const TOKEN = { code: 33, message: 'The supplied continuation token is invalid or unknown' };
  const BLOCK = { code: 24, message: 'Block not found' };
  const KEYS = { code: 34, message: 'Too many keys provided in a filter' };

  it('31: chunk_size above 1024', async () => {
    expect(await rpcError(ctx(), { filter: { chunk_size: 1025 } })).toEqual(PAGE);
    expect(await rpcError(ctx(), { filter: { chunk_size: 1e20 } })).toEqual(PAGE);
    expect((await call(ctx(), { filter: { chunk_size: 1024 } })).events.length).toBe(1024);
  });

  it('34: more than 16 key positions', async () => {
    expect(await rpcError(ctx(), { filter: { chunk_size: 1, keys: Array.from({ length: 17 }, () => []) } })).toEqual(KEYS);
    expect(await call(ctx(), { filter: { chunk_size: 1, keys: Array.from({ length: 16 }, () => []) } })).toMatchObject({ events: [{}] });
  });

  it('31 and 34 follow the starknet settings (maxChunkSize, maxKeyPositions)', async () => {
    const small = { ...ctx(), eventLimits: eventLimits(testConfig({ starknet: { maxChunkSize: 5, maxKeyPositions: 2 } })) };
    expect(await rpcError(small, { filter: { chunk_size: 6 } })).toEqual(PAGE);
    expect((await call(small, { filter: { chunk_size: 5 } })).events.length).toBe(5);
    expect(await rpcError(small, { filter: { chunk_size: 1, keys: [[], [], []] } })).toEqual(KEYS);
    expect(await call(small, { filter: { chunk_size: 1, keys: [[], []] } })).toMatchObject({ events: [{}] });
  });

  it('24: unknown block number, hash or tag without block', async () => {
    expect(await rpcError(ctx(), { filter: { chunk_size: 1, from_block: { block_number: 1000 } } })).toEqual(BLOCK);
    expect(await rpcError(ctx(), { filter: { chunk_size: 1, to_block: { block_number: 619597 } } })).toEqual(BLOCK);
    expect(await rpcError(ctx(), { filter: { chunk_size: 1, to_block: { block_number: 2 ** 60 } } })).toEqual(BLOCK);
    expect(await rpcError(ctx(), { filter: { chunk_size: 1, from_block: { block_hash: '0x1234' } } })).toEqual(BLOCK);
    expect(await rpcError(ctx(), { filter: { chunk_size: 1, to_block: { block_hash: '0x1234' } } })).toEqual(BLOCK);
  });

  it('the store-side query throws domain errors, which the method table maps to these codes', async () => {
    const store = ctx().store;
    const domain = async (filter: EventFilter) => {
      const err: unknown = await storeGetEvents(store, filter, { limits: EVENT_LIMITS }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).not.toBeInstanceOf(RpcError);
      return err;
    };
    expect(await domain({ chunkSize: 1025 })).toBeInstanceOf(PageSizeTooBigError);
    expect(await domain({ chunkSize: 1, keys: Array.from({ length: 17 }, () => []) })).toBeInstanceOf(TooManyKeysInFilterError);
    expect(await domain({ chunkSize: 1, fromBlock: { number: 1000 } })).toMatchObject({ name: 'BlockNotFoundError', block: 'number 1000' });
    expect(await domain({ chunkSize: 1, continuationToken: 'abc' })).toMatchObject({ name: 'InvalidContinuationTokenError', reason: 'not a token' });
    const range = { fromBlock: { number: 2240 }, toBlock: { number: 2800 }, chunkSize: 5 };
    expect(await domain({ ...range, continuationToken: '65000-0' })).toMatchObject({
      name: 'InvalidContinuationTokenError',
      reason: 'block outside the range',
    });
    expect(await domain({ ...range, continuationToken: '2240-38' })).toMatchObject({
      name: 'InvalidContinuationTokenError',
      reason: 'not the next match of this filter',
    });
  });

  it('33: garbage, negative, non-canonical tokens', async () => {
    for (const t of ['', 'abc', '-1-0', '1--1', '01-0', '2240-', '2240', '2240-0-0', ' 2240-0']) {
      expect(await rpcError(ctx(), { filter: { chunk_size: 1, continuation_token: t } }), t).toEqual(TOKEN);
    }
  });

  it('33: token beyond the range, or before it', async () => {
    const f = { from_block: { block_number: 2240 }, to_block: { block_number: 2800 }, chunk_size: 5 };
    expect(await rpcError(ctx(), { filter: { ...f, continuation_token: '65000-0' } })).toEqual(TOKEN);
    expect(await rpcError(ctx(), { filter: { ...f, continuation_token: '200-0' } })).toEqual(TOKEN);
    // Inside the range but past the block's matches, or in a block (or gap) without matches.
    expect(await rpcError(ctx(), { filter: { ...f, continuation_token: '2240-38' } })).toEqual(TOKEN);
    expect(await rpcError(ctx(), { filter: { ...f, continuation_token: '2300-0' } })).toEqual(TOKEN);
    const resumed = await call(ctx(), { filter: { ...f, continuation_token: '2240-37' } });
    expect(resumed.events[0]).toEqual(all.mainnet.filter((e) => e.block_number === 2240)[37]);
    expect(resumed.events[1].block_number).toBe(2500);
  });

  it('33: a token from one filter reused on another', async () => {
    // A token points at the next matching event: reused on a filter that event does not match,
    // it is refused, whatever the range.
    const strk = await call(ctx(), { filter: { address: STRK, chunk_size: 100 } });
    expect(strk.continuation_token).toMatch(/^619596-\d+$/);
    expect(await rpcError(ctx(), { filter: { address: ETH, chunk_size: 100, continuation_token: strk.continuation_token } })).toEqual(TOKEN);
    expect(await rpcError(ctx(), { filter: { keys: [['0x1234']], chunk_size: 100, continuation_token: strk.continuation_token } })).toEqual(TOKEN);
    // …or when its block is outside the other filter's range.
    expect(
      await rpcError(ctx(), { filter: { address: STRK, to_block: { block_number: 65000 }, chunk_size: 100, continuation_token: strk.continuation_token } }),
    ).toEqual(TOKEN);
    const eth = await call(ctx(), { filter: { address: ETH, chunk_size: 10 } });
    expect(eth.continuation_token).toMatch(/^65000-\d+$/);
    expect(await rpcError(ctx(), { filter: { address: STRK, chunk_size: 10, continuation_token: eth.continuation_token } })).toEqual(TOKEN);
    expect(
      await rpcError(ctx(), { filter: { address: ETH, to_block: { block_number: 2800 }, chunk_size: 10, continuation_token: eth.continuation_token } }),
    ).toEqual(TOKEN);
    // A position that matches both filters is a valid starting point for either: paging goes on
    // with the new filter from that event.
    const next = all.mainnet.find(
      (e) => `${e.block_number}-${all.mainnet.filter((x) => x.block_number === e.block_number).indexOf(e)}` === eth.continuation_token,
    )!;
    expect(next.from_address).toBe(ETH);
    const r = await call(ctx(), { filter: { keys: [[next.keys[0]]], chunk_size: 1, continuation_token: eth.continuation_token } });
    expect(r.events).toEqual([next]);
  });

  it('-32602: malformed params', async () => {
    const bad: [unknown, string][] = [
      [{ filter: { chunk_size: 0 } }, 'invalid argument 0: chunk_size: chunk_size must be an integer ≥ 1'],
      [{ filter: { chunk_size: -1 } }, 'invalid argument 0: chunk_size: chunk_size must be an integer ≥ 1'],
      [{ filter: { chunk_size: 1.5 } }, 'invalid argument 0: chunk_size: chunk_size must be an integer ≥ 1'],
      [{ filter: { chunk_size: '10' } }, 'invalid argument 0: chunk_size: chunk_size is required and must be an integer ≥ 1'],
      [{ filter: {} }, 'invalid argument 0: chunk_size: chunk_size is required and must be an integer ≥ 1'],
      [{ filter: { chunk_size: 1, foo: 1 } }, 'invalid argument 0: Unrecognized key: "foo"'],
      [{ filter: { chunk_size: 1, address: '0xzz' } }, ''],
      [{ filter: { chunk_size: 1, address: '0x800000000000011000000000000000000000000000000000000000000000001' } }, ''],
      [{ filter: { chunk_size: 1, address: `0x${'1'.repeat(65)}` } }, ''],
      [{ filter: { chunk_size: 1, address: '1234' } }, ''],
      [{ filter: { chunk_size: 1, address: 1234 } }, ''],
      [{ filter: { chunk_size: 1, keys: ['0x1'] } }, ''],
      [{ filter: { chunk_size: 1, keys: [['0x1', 'zz']] } }, ''],
      [{ filter: { chunk_size: 1, from_block: 0 } }, ''],
      [{ filter: { chunk_size: 1, from_block: 'earliest' } }, ''],
      [{ filter: { chunk_size: 1, from_block: { block_number: -1 } } }, ''],
      [{ filter: { chunk_size: 1, from_block: { block_number: '0x1' } } }, ''],
      [{ filter: { chunk_size: 1, from_block: { block_number: 1, block_hash: '0x1' } } }, ''],
      [{ filter: { chunk_size: 1, continuation_token: 5 } }, ''],
      [{ filter: null }, 'invalid argument 0: Invalid input: expected object, received null'],
      [{}, 'missing value for required argument 0'],
      [{ filtr: { chunk_size: 1 } }, 'unknown argument name: filtr'],
      [[{ chunk_size: 1 }, {}], 'too many arguments, want at most 1'],
      ['filter', 'non-array args'],
    ];
    for (const [params, message] of bad) {
      const err = await rpcError(ctx(), params);
      expect(err.code, JSON.stringify(params)).toBe(-32602);
      if (message) expect(err.message, JSON.stringify(params)).toBe(message);
      else expect(err.message, JSON.stringify(params)).toMatch(/^invalid argument 0: /);
    }
  });

  it('error messages name the field', async () => {
    expect((await rpcError(ctx(), { filter: { chunk_size: 1, keys: [['0x1', 'zz']] } })).message).toBe(
      'invalid argument 0: keys.0.1: invalid felt "zz": want 0x followed by 1 to 64 hex digits',
    );
    expect((await rpcError(ctx(), { filter: { chunk_size: 1, address: '0x800000000000011000000000000000000000000000000000000000000000001' } })).message).toBe(
      'invalid argument 0: address: invalid felt "0x800000000000011000000000000000000000000000000000000000000000001": not below the field prime',
    );
  });
});

// ---------------------------------------------------------------------------------------------

/** A synthetic block line in the fixture format. */
function blockLine(number: number, opts: { hash?: string; status?: string; txs?: { from: string; keys: string[]; data?: string[] }[][] } = {}): string {
  const txs = opts.txs ?? [[{ from: '0xa', keys: ['0x1'] }]];
  return JSON.stringify({
    status: opts.status ?? 'ACCEPTED_ON_L2',
    block_hash: opts.hash ?? `0x${(0xb000 + number).toString(16)}`,
    parent_hash: `0x${(0xb000 + number - 1).toString(16)}`,
    block_number: number,
    timestamp: 1700000000 + number,
    transactions: txs.map((events, t) => ({
      transaction: { transaction_hash: `0x${(0x7000 + number * 100 + t).toString(16)}`, type: 'INVOKE' },
      receipt: {
        transaction_hash: `0x${(0x7000 + number * 100 + t).toString(16)}`,
        events: events.map((e) => ({ from_address: e.from, keys: e.keys, data: e.data ?? ['0x0'] })),
      },
    })),
  });
}

async function withStore<T>(fn: (store: StarknetStore, dir: string) => Promise<T>): Promise<T> {
  const dir = freshDir();
  const store = await openStarknetStore(dir, { create: true, blockCacheEntries: STORE_BLOCK_CACHE });
  try {
    return await fn(store, dir);
  } finally {
    await store.close();
  }
}

async function eventCountOfBlock(level: Level, block: number): Promise<number> {
  const key = new Uint8Array(9);
  key[0] = 0x45;
  new DataView(key.buffer).setBigUint64(1, BigInt(block));
  const end = key.slice();
  new DataView(end.buffer).setBigUint64(1, BigInt(block + 1));
  return (await level.keys({ gte: key, lt: end }).all()).length;
}

describe('import-starknet', () => {
  it('gaps in block numbers and out-of-order blocks are accepted', async () => {
    await withStore(async (store) => {
      const r = await importStarknetBlocks(store, [blockLine(10), blockLine(3), '', blockLine(1000)]);
      expect(r).toMatchObject({ imported: 3, skipped: 0, events: 3, lines: 4, latest: 1000 });
      const ctx = { store, eventLimits: EVENT_LIMITS } as StarknetContext;
      const page = await call(ctx, { filter: { chunk_size: 10 } });
      expect(page.events.map((e) => e.block_number)).toEqual([3, 10, 1000]);
      expect(await blockNumberMethod.call(ctx, [])).toBe(1000);
    });
  });

  it('re-import skips blocks present by number or by hash', async () => {
    await withStore(async (store) => {
      await importStarknetBlocks(store, [blockLine(1), blockLine(2)]);
      const again = await importStarknetBlocks(store, [blockLine(1), blockLine(2), blockLine(3)]);
      expect(again).toMatchObject({ imported: 1, skipped: 2 });
      const out: string[] = [];
      const sink = { write: (s: string) => out.push(s) } as unknown as NodeJS.WritableStream;
      const conflicts = await importStarknetBlocks(store, [blockLine(2, { hash: '0xdead' }), blockLine(4, { hash: '0xb001' })], {
        progress: { to: sink, everyMs: SETTINGS.import.progressIntervalMs.default },
      });
      expect(conflicts).toMatchObject({ imported: 0, skipped: 2 });
      expect(out.join('')).toContain('line 1: skipped block 2 0xdead: block 2 is already stored with hash 0xb002');
      expect(out.join('')).toContain('line 2: skipped block 4 0xb001: hash 0xb001 is already stored');
      expect(await store.block(4)).toBeUndefined();
      expect((await store.block(2))?.hash).toBe('0xb002');
    });
  });

  it('a malformed line stops the import with its line number and nothing of that block written', async () => {
    await withStore(async (store) => {
      const good = blockLine(1);
      // Block 2 is valid up to its last event, whose last data felt is bad.
      const bad = blockLine(2, { txs: [[{ from: '0xa', keys: ['0x1'] }], [{ from: '0xa', keys: ['0x1'], data: ['0x1', '0xnope'] }]] });
      let caught: unknown;
      try {
        await importStarknetBlocks(store, ['', good, bad, blockLine(3)], { source: 'blocks.ndjson' });
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(StarknetImportError);
      expect((caught as StarknetImportError).line).toBe(3);
      expect((caught as Error).message).toBe('blocks.ndjson line 3: transactions[1].receipt.events[0].data[1]: invalid felt "0xnope": not hexadecimal');
      expect(await store.block(1)).toBeDefined();
      expect(await store.block(2)).toBeUndefined();
      expect(await store.block(3)).toBeUndefined();
      expect(await eventCountOfBlock(store.level, 2)).toBe(0);
      expect(await store.blockNumberByHash(feltToBytes('0xb002'))).toBeUndefined();
      expect(await store.latestNumber()).toBe(1);
    });
  });

  it.each([
    ['not JSON', '{"block_number": 1', /^line 1: not JSON: /],
    ['missing block_hash', JSON.stringify({ ...JSON.parse(blockLine(1)), block_hash: undefined }), /^line 1: block_hash: want a felt string, got undefined$/],
    ['pending status', blockLine(1, { status: 'PRE_CONFIRMED' }), /^line 1: status: "PRE_CONFIRMED" is not importable/],
    ['negative number', blockLine(-1), /^line 1: block_number: want a non-negative integer$/],
    [
      'tx hash mismatch',
      blockLine(1).replace('"transaction_hash":"0x7064"', '"transaction_hash":"0x7065"'),
      /^line 1: transactions\[0\]: transaction_hash 0x7065 != receipt.transaction_hash 0x7064$/,
    ],
    [
      'events not an array',
      JSON.stringify({ ...JSON.parse(blockLine(1)), transactions: [{ receipt: { transaction_hash: '0x1', events: {} } }] }),
      /^line 1: transactions\[0\].receipt.events: want an array$/,
    ],
  ])('malformed: %s', async (_name, line, message) => {
    await withStore(async (store) => {
      await expect(importStarknetBlocks(store, [line])).rejects.toThrow(message);
      expect(await store.latestNumber()).toBeUndefined();
    });
  });

  it('a block cache smaller than a page still resolves every block hash', async () => {
    await withStore(async (store) => {
      await importStarknetBlocks(
        store,
        [0, 1, 2, 3, 4, 5].map((n) => blockLine(n)),
      );
      const tiny = { store: new StarknetStore(store.level, 2), eventLimits: EVENT_LIMITS } as StarknetContext;
      for (let i = 0; i < 3; i++) {
        const r = await call(tiny, { filter: { chunk_size: 10 } });
        expect(r.events.map((e) => e.block_hash)).toEqual([0, 1, 2, 3, 4, 5].map((n) => `0x${(0xb000 + n).toString(16)}`));
      }
    });
  });

  it('l1_accepted is the highest ACCEPTED_ON_L1 block; 24 when there is none', async () => {
    await withStore(async (store) => {
      const ctx = { store, eventLimits: EVENT_LIMITS } as StarknetContext;
      await importStarknetBlocks(store, [blockLine(1), blockLine(2)]);
      expect(await rpcError(ctx, { filter: { chunk_size: 1, to_block: 'l1_accepted' } })).toEqual({ code: 24, message: 'Block not found' });
      await importStarknetBlocks(store, [blockLine(0, { status: 'ACCEPTED_ON_L1' }), blockLine(5)]);
      const r = await call(ctx, { filter: { chunk_size: 10, to_block: 'l1_accepted' } });
      expect(r.events.map((e) => e.block_number)).toEqual([0]);
      expect((await call(ctx, { filter: { chunk_size: 10, from_block: 'l1_accepted' } })).events.map((e) => e.block_number)).toEqual([0, 1, 2, 5]);
    });
  });

  it('an empty datadir: no events, latest → 24, starknet_blockNumber → 32', async () => {
    await withStore(async (store) => {
      const ctx = { store, eventLimits: EVENT_LIMITS } as StarknetContext;
      expect(await call(ctx, { filter: { chunk_size: 10 } })).toEqual({ events: [] });
      expect(await rpcError(ctx, { filter: { chunk_size: 10, from_block: 'latest' } })).toEqual({ code: 24, message: 'Block not found' });
      expect(await rpcError(ctx, [], blockNumberMethod)).toEqual({ code: 32, message: 'There are no blocks' });
    });
  });

  it('tracenode import-starknet: summary on stdout, resumable, a bad line names file and line', async () => {
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    vi.stubEnv('TRACENODE_DATADIR', '');
    try {
      const dir = freshDir();
      const file = join(tmp, 'cli.ndjson');
      writeFileSync(file, `${blockLine(7)}\n${blockLine(9)}\n`);
      expect(await runImportStarknet(['--datadir', dir, file])).toBe(0);
      expect(out.join('')).toMatch(
        /^import-starknet: done, 2 blocks \(2 events\) imported, 0 already present, in [\d.]+ s \([\d.]+ blocks\/s, \d+ events\/s\); latest block 9\n$/,
      );
      out.length = 0;
      const bad = join(tmp, 'bad.ndjson');
      writeFileSync(bad, `${blockLine(7)}\n${blockLine(10)}\nnot json\n${blockLine(11)}\n`);
      await expect(runImportStarknet(['--datadir', dir, bad])).rejects.toThrow(`${bad} line 3: not JSON: `);
      const store = await openStarknetStore(dir, { blockCacheEntries: STORE_BLOCK_CACHE });
      expect(await store.latestNumber()).toBe(10);
      await store.close();
      await expect(runImportStarknet(['--datadir', dir])).rejects.toThrow('no NDJSON file given');
      await expect(runImportStarknet([file])).rejects.toThrow('missing --datadir');
      await expect(runImportStarknet(['--datadir', dir, join(tmp, 'nope.ndjson')])).rejects.toThrow('cannot read');
      expect(await runImportStarknet(['--help'])).toBe(0);
      expect(out.join('')).toContain(IMPORT_STARKNET_HELP);
    } finally {
      spy.mockRestore();
      vi.unstubAllEnvs();
    }
  });

  it('the datadir kind: refuses Ethereum datadirs, empty datadirs for serving, and writes m kind = starknet', async () => {
    const eth = freshDir();
    const level = await openDatabase(eth);
    await level.put(META.genesis, new TextEncoder().encode('{}'));
    await level.close();
    await expect(openStarknetStore(eth, { create: true, blockCacheEntries: STORE_BLOCK_CACHE })).rejects.toThrow(
      `datadir ${eth} holds an Ethereum chain, not a Starknet one`,
    );
    const other = freshDir();
    const l2 = await openDatabase(other);
    await l2.put(DATADIR_KIND_KEY, new TextEncoder().encode('ethereum'));
    await l2.close();
    await expect(openStarknetStore(other, { create: true, blockCacheEntries: STORE_BLOCK_CACHE })).rejects.toThrow(
      'holds a ethereum chain, not a Starknet one',
    );
    const empty = freshDir();
    await expect(openStarknetStore(empty, { blockCacheEntries: STORE_BLOCK_CACHE })).rejects.toThrow('has no Starknet blocks: run `tracenode import-starknet');
    await withStore(async (store) => {
      expect(new TextDecoder().decode(await store.level.get(DATADIR_KIND_KEY))).toBe('starknet');
    });
  });
});
