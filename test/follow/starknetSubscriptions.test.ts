import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { tempDir } from '../helpers/chains.js';
import { runCli, type ServeCli, startServeCli } from '../helpers/cli.js';
import { rawHttp } from '../helpers/rpcClient.js';
import { eventsOf, type FixtureBlock, type FixtureEvent, fixtureBlocks, referenceMatch, sampleFilters } from '../helpers/starknetFixtures.js';
import { linkedChain, StarknetUpstream } from '../helpers/starknetUpstream.js';
import { until } from '../helpers/until.js';

/**
 * Starknet subscriptions (WebSocket spec v0.8) on a chain that moves: the fixture upstream serves
 * the real mainnet blocks as one linked chain (block i of the file is block number i), first
 * 0..3, then 0..6, then with block 6 replaced once (a reorganisation). `serve --follow` follows it;
 * WebSocket clients subscribed to new heads and to events with a sample filter of the fixture
 * receive exactly the fixture's headers, exactly the events an independent matcher
 * (`referenceMatch`) picks from the fixture's blocks, then a reorganisation naming block 6's old
 * hash, then the replacement's header and events.
 */

const tmp = tempDir('tracenode-starknet-subs-');
const KEY = 'sn-subs-key';
const chain = linkedChain(fixtureBlocks('mainnet'));
/** Block 6 replaced: its first 100 transactions only, and another hash. */
const replaced: FixtureBlock = { ...chain[6], block_hash: '0x7e57ab1e5eed06', transactions: chain[6].transactions.slice(0, 100) };
/** The fixture's sample filter on one contract and one selector (its Transfer events). */
const SAMPLE = sampleFilters('mainnet').find((s) => s.name === 'address + keys[0]')!;
const MAX_BLOCKS_BACK = 3;
const MAX_PER_CONNECTION = 4;
let upstream: StarknetUpstream;
let serve: ServeCli | undefined;

beforeAll(async () => {
  upstream = await StarknetUpstream.start();
  upstream.setChain(chain.slice(0, 4));
  const datadir = join(tmp.dir, 'followed');
  expect((await runCli(['follow', '--datadir', datadir, '--follow', upstream.httpUrl])).code).toBe(0);
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
    upstream.httpUrl,
    '--follow.poll-interval-ms',
    '50',
    '--subscriptions.max-blocks-back',
    String(MAX_BLOCKS_BACK),
    '--subscriptions.max-per-connection',
    String(MAX_PER_CONNECTION),
  ]);
});

afterAll(async () => {
  serve?.child.kill('SIGKILL');
  await upstream?.stop();
  tmp.cleanup();
});

interface Note {
  method: string;
  subscription_id: string;
  result: Record<string, unknown>;
}

/** A raw WebSocket client: calls matched by id, notifications kept in order (envelope checked). */
async function openWs(): Promise<{
  call(method: string, params?: unknown): Promise<{ result?: unknown; error?: { code: number; message: string } }>;
  notes: Note[];
  raw: string[];
  close(): void;
}> {
  const socket = new WebSocket(`${serve!.base.replace('http://', 'ws://')}/ws/v3/${KEY}`);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let next = 1;
  const waiting = new Map<number, (a: { result?: unknown; error?: { code: number; message: string } }) => void>();
  const notes: Note[] = [];
  const raw: string[] = [];
  socket.on('message', (data) => {
    const m = JSON.parse(data.toString());
    if (m.id === undefined) {
      expect(Object.keys(m)).toEqual(['jsonrpc', 'method', 'params']);
      expect(Object.keys(m.params)).toEqual(['subscription_id', 'result']);
      raw.push(data.toString());
      notes.push({ method: m.method, ...m.params });
      return;
    }
    waiting.get(m.id)?.('error' in m ? { error: m.error } : { result: m.result });
    waiting.delete(m.id);
  });
  return {
    call(method, params = []) {
      const id = next++;
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      return new Promise((r) => waiting.set(id, r));
    },
    notes,
    raw,
    close: () => socket.close(),
  };
}

/**
 * A fixture block's BLOCK_HEADER, read from the fixture's JSON (the upstream's answer); the one
 * field mainnet's old blocks lack, l2_gas_price, is 0x1/0x1 as pathfinder stores it.
 */
function expectedHeader(b: FixtureBlock): Record<string, unknown> {
  return {
    block_hash: b.block_hash,
    parent_hash: b.parent_hash,
    block_number: b.block_number,
    new_root: b.new_root,
    timestamp: b.timestamp,
    sequencer_address: b.sequencer_address,
    l1_gas_price: b.l1_gas_price,
    l2_gas_price: b.l2_gas_price ?? { price_in_fri: '0x1', price_in_wei: '0x1' },
    l1_data_gas_price: b.l1_data_gas_price,
    l1_da_mode: b.l1_da_mode,
    starknet_version: b.starknet_version,
  };
}

const matching = (blocks: FixtureBlock[]): FixtureEvent[] => eventsOf(blocks).filter((e) => referenceMatch(SAMPLE.filter, e));
/** {@link until} with serve's recent output in its error. */
const untilServed = <T>(what: string, read: () => T | Promise<T>, ok: (v: T) => boolean) =>
  until(what, read, ok, 20_000, () => `serve said: ${serve?.output().slice(-1500)}`);
const of = (notes: Note[], id: string) => notes.filter((n) => n.subscription_id === id);

describe('Starknet subscriptions', () => {
  it('new heads and events through blocks 3→6 and a replaced block 6: exact headers, the matcher’s events, the reorganisation in between', async () => {
    await untilServed(
      'following',
      async () => JSON.parse((await rawHttp(`${serve!.base}/health`, { method: 'GET' })).text).following,
      (s) => s === 'following',
    );
    const ws = await openWs();
    const heads = (await ws.call('starknet_subscribeNewHeads')).result as string;
    const events = (await ws.call('starknet_subscribeEvents', { from_address: SAMPLE.filter.address, keys: SAMPLE.filter.keys })).result as string;
    // Ids are decimal strings (pathfinder's form), distinct.
    expect([heads, events].every((id) => /^[1-9][0-9]*$/.test(id))).toBe(true);
    expect(heads).not.toBe(events);
    // From `latest`: block 3, the head when subscribing, comes first.
    await untilServed(
      'block 3',
      () => of(ws.notes, heads).length,
      (n) => n === 1,
    );
    // A second client, from a past block: blocks 1..3 first (within the limit of 3 blocks back).
    const late = await openWs();
    const fromOne = (await late.call('starknet_subscribeNewHeads', [{ block_number: 1 }])).result as string;
    const lateEvents = (await late.call('starknet_subscribeEvents', [SAMPLE.filter.address, SAMPLE.filter.keys, { block_hash: chain[2].block_hash }]))
      .result as string;
    await untilServed(
      'catch-up 1..3',
      () => of(late.notes, fromOne).length,
      (n) => n === 3,
    );

    upstream.setChain(chain);
    await untilServed(
      'block 6',
      () => of(ws.notes, heads).map((n) => n.result.block_number),
      (n) => n.at(-1) === 6,
    );
    upstream.setChain([...chain.slice(0, 6), replaced]);
    await untilServed(
      'replacement',
      () => of(ws.notes, heads).map((n) => n.result.block_hash),
      (h) => h.at(-1) === replaced.block_hash,
    );
    await untilServed(
      'replacement events',
      () => of(ws.notes, events).length,
      (n) => n === matching(chain.slice(3)).length + 1 + matching([replaced]).length,
    );
    // The second client's notifications travel on their own socket: wait for them too (a busy
    // machine delivered 719 of its 802 when only the first client's were awaited).
    await untilServed(
      'replacement, second client',
      () => [of(late.notes, fromOne).length, of(late.notes, lateEvents).length],
      ([h, e]) => h === chain.length - 1 + 2 && e === matching(chain.slice(2)).length + 1 + matching([replaced]).length,
    );

    const reorg = {
      method: 'starknet_subscriptionReorg',
      result: { starting_block_hash: chain[6].block_hash, starting_block_number: 6, ending_block_hash: chain[6].block_hash, ending_block_number: 6 },
    };
    const header = (b: FixtureBlock) => ({ method: 'starknet_subscriptionNewHeads', result: expectedHeader(b) });
    const event = (e: FixtureEvent) => ({ method: 'starknet_subscriptionEvents', result: e });
    const strip = (notes: Note[]) => notes.map(({ method, result }) => ({ method, result }));
    expect(strip(of(ws.notes, heads))).toEqual([...chain.slice(3).map(header), reorg, header(replaced)]);
    expect(strip(of(ws.notes, events))).toEqual([...matching(chain.slice(3)).map(event), reorg, ...matching([replaced]).map(event)]);
    expect(strip(of(late.notes, fromOne))).toEqual([...chain.slice(1).map(header), reorg, header(replaced)]);
    expect(strip(of(late.notes, lateEvents))).toEqual([...matching(chain.slice(2)).map(event), reorg, ...matching([replaced]).map(event)]);
    // The exact frame, as pathfinder writes it.
    const firstHeader = ws.raw.find((r) => r.includes('starknet_subscriptionNewHeads'))!;
    expect(JSON.parse(firstHeader)).toEqual({
      jsonrpc: '2.0',
      method: 'starknet_subscriptionNewHeads',
      params: { subscription_id: heads, result: expectedHeader(chain[3]) },
    });
    // The filter picked something in each part (else the comparison proves little).
    expect([matching(chain.slice(3)).length, matching([replaced]).length].every((n) => n > 0)).toBe(true);

    expect(await ws.call('starknet_unsubscribe', [heads])).toEqual({ result: true });
    expect(await ws.call('starknet_unsubscribe', { subscription_id: heads })).toEqual({ error: { code: 66, message: 'Invalid subscription id' } });
    expect(await late.call('starknet_unsubscribe', [events])).toEqual({ error: { code: 66, message: 'Invalid subscription id' } });
    ws.close();
    late.close();
  });

  it('errors: too many blocks back (68), unknown block (24), a tag the spec does not allow, too many keys (34), the per-connection cap; over HTTP none of them', async () => {
    const ws = await openWs();
    const head = 6;
    expect(await ws.call('starknet_subscribeNewHeads', [{ block_number: head - MAX_BLOCKS_BACK }])).toEqual({
      error: { code: 68, message: `Cannot go back more than ${MAX_BLOCKS_BACK} blocks` },
    });
    expect(await ws.call('starknet_subscribeEvents', { block_id: { block_number: 0 } })).toMatchObject({ error: { code: 68 } });
    expect(await ws.call('starknet_subscribeNewHeads', [{ block_number: 7 }])).toEqual({ error: { code: 24, message: 'Block not found' } });
    expect(await ws.call('starknet_subscribeNewHeads', [{ block_hash: chain[6].block_hash }])).toEqual({ error: { code: 24, message: 'Block not found' } });
    expect(await ws.call('starknet_subscribeNewHeads', ['pending'])).toEqual({
      error: { code: -32602, message: 'invalid argument 0: unknown block tag "pending", want latest' },
    });
    expect(await ws.call('starknet_subscribeEvents', { keys: Array.from({ length: 17 }, () => ['0x1']) })).toEqual({
      error: { code: 34, message: 'Too many keys provided in a filter' },
    });
    expect(await ws.call('starknet_subscribeEvents', { from_address: '0xzz' })).toMatchObject({ error: { code: -32602 } });
    // The per-connection cap of eth_subscribe holds here too; an unsubscribe frees a place.
    const ids: string[] = [];
    for (let i = 0; i < MAX_PER_CONNECTION; i++) ids.push((await ws.call(i % 2 ? 'starknet_subscribeEvents' : 'starknet_subscribeNewHeads')).result as string);
    const over = { error: { code: -32005, message: `too many subscriptions on this connection (limit ${MAX_PER_CONNECTION})` } };
    expect(await ws.call('starknet_subscribeNewHeads')).toEqual(over);
    expect(await ws.call('starknet_subscribeEvents')).toEqual(over);
    expect(await ws.call('starknet_unsubscribe', [ids[0]])).toEqual({ result: true });
    expect((await ws.call('starknet_subscribeNewHeads')).result).toMatch(/^[0-9]+$/);
    ws.close();
    for (const method of ['starknet_subscribeNewHeads', 'starknet_subscribeEvents', 'starknet_unsubscribe']) {
      const r = await rawHttp(`${serve!.base}/v3/${KEY}`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: method === 'starknet_unsubscribe' ? ['1'] : [] }),
      });
      expect(JSON.parse(r.text), method).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'notifications not supported' } });
    }
  });
});
