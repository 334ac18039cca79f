import { join } from 'node:path';
import type { Block } from '@ethereumjs/block';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EthereumChain } from '../../src/chain/open.js';
import type { BatchOp } from '../../src/db/database.js';
import { createEthContext, type EthContext, ethLimits } from '../../src/methods/context.js';
import { tracerOf } from '../../src/methods/trace/_shared.js';
import { traceMethods } from '../../src/methods/traceMethods.js';
import { indexedBlocks, readIndexHead, reindexTraceAddresses, TRACE_INDEX_PREFIX } from '../../src/tracing/addressIndex.js';
import type { RpcTrace } from '../../src/tracing/parity.js';
import type { TraceService } from '../../src/tracing/replay.js';
import { FIXTURES, importFixtureChain, tempDir } from '../helpers/chains.js';
import { testConfig } from '../helpers/testConfig.js';
import { wireError } from '../helpers/wireError.js';
import { buildDemoChain, DEMO, SENDER } from './demoChain.js';

/** The default `rpc.traceFilterMaxResults`. */
const MAX_RESULTS = testConfig().rpc.traceFilterMaxResults;

const methods = Object.fromEntries(traceMethods.map((m) => [m.name, m]));
const q = (n: bigint | number) => `0x${n.toString(16)}`;

// ---------------------------------------------------------------------------------------------
// The reference: an independent, brute-force trace_filter over trace_block output of every block.

type BlockArg = string | undefined;
interface Query {
  fromBlock: BlockArg;
  toBlock: BlockArg;
  fromAddress: string[] | undefined;
  toAddress: string[] | undefined;
  mode: 'union' | 'intersection' | undefined;
  after: number | undefined;
  count: number | undefined;
}

/** The from and to side of a rendered trace (docs/methods.md#trace_filter). */
function sidesOf(t: RpcTrace): [string | undefined, string | undefined] {
  const a = t.action as unknown as Record<string, string>;
  switch (t.type) {
    case 'call':
      return [a.from, a.to];
    case 'create':
      return [a.from, t.result ? (t.result as { address: string }).address : undefined];
    case 'suicide':
      return [a.address, a.refundAddress];
    case 'reward':
      return [undefined, a.author];
  }
}

function resolve(arg: BlockArg, head: number): number {
  if (arg === undefined || arg === 'latest' || arg === 'pending') return head;
  if (arg === 'earliest') return 0;
  return Number(arg);
}

/** Expected result, or the expected error code. */
function bruteForce(all: RpcTrace[], head: number, query: Query, limit: number): RpcTrace[] | { code: number } {
  const from = resolve(query.fromBlock, head);
  const to = resolve(query.toBlock, head);
  if (from > to) return { code: -32602 };
  const F = query.fromAddress ?? [];
  const T = query.toAddress ?? [];
  const matched = all.filter((t) => {
    if (t.blockNumber < from || t.blockNumber > to) return false;
    const [s, d] = sidesOf(t);
    const fOk = s !== undefined && F.includes(s);
    const tOk = d !== undefined && T.includes(d);
    if (F.length === 0 && T.length === 0) return true;
    if (T.length === 0) return fOk;
    if (F.length === 0) return tOk;
    return query.mode === 'intersection' ? fOk && tOk : fOk || tOk;
  });
  const after = query.after ?? 0;
  const page = matched.slice(after, query.count === undefined ? undefined : after + query.count);
  if (page.length > limit) return { code: -32005 };
  return page;
}

function filterObject(query: Query): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query)) if (v !== undefined) o[k] = v;
  return o;
}

async function runFilter(ctx: EthContext, query: Query): Promise<RpcTrace[] | { code: number }> {
  try {
    return (await methods.trace_filter.call(ctx, [filterObject(query)])) as RpcTrace[];
  } catch (err) {
    return { code: (err as { code: number }).code };
  }
}

function* product(opts: {
  blocks: Array<[BlockArg, BlockArg]>;
  addresses: Array<string[] | undefined>;
  modes: Array<Query['mode']>;
  afters: Array<number | undefined>;
  counts: Array<number | undefined>;
}): Generator<Query> {
  for (const [fromBlock, toBlock] of opts.blocks)
    for (const fromAddress of opts.addresses)
      for (const toAddress of opts.addresses)
        for (const mode of opts.modes)
          for (const after of opts.afters) for (const count of opts.counts) yield { fromBlock, toBlock, fromAddress, toAddress, mode, after, count };
}

/** Counts the blocks the methods ask the trace service for. */
function countingTracer(inner: TraceService): TraceService & { asked: bigint[] } {
  const asked: bigint[] = [];
  return {
    asked,
    async blockTraces(block: Block) {
      asked.push(block.header.number);
      return inner.blockTraces(block);
    },
    async tracesByHash(hash: Uint8Array) {
      const traces = await inner.tracesByHash(hash);
      if (traces) asked.push(traces.number);
      return traces;
    },
    cacheStats: () => inner.cacheStats(),
  };
}

async function allTraces(ctx: EthContext, head: number): Promise<RpcTrace[]> {
  const out: RpcTrace[] = [];
  for (let n = 0; n <= head; n++) out.push(...((await methods.trace_block.call(ctx, [q(n)])) as RpcTrace[]));
  return out;
}

// ---------------------------------------------------------------------------------------------

describe('trace_filter on the execution-apis chain (flat traces, rewards, 54 blocks)', () => {
  const datadir = tempDir();
  let chain: EthereumChain;
  let ctx: EthContext;
  let all: RpcTrace[];
  const head = 54;
  const sender = '0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f';

  beforeAll(async () => {
    chain = await importFixtureChain(join(FIXTURES, 'execution-apis'), datadir.dir);
    ctx = await createEthContext(chain, 'test', testConfig());
    // Until the importer writes the index itself, build it as for an existing database (through
    // the context's trace service, whose cache then serves the whole file).
    await reindexTraceAddresses(chain, { tracer: tracerOf(ctx) });
    all = await allTraces(ctx, head);
  });
  afterAll(async () => {
    await chain?.close();
    datadir.cleanup();
  });

  it('every combination of range, from/to addresses, mode, after and count equals the brute-force filter', async () => {
    const miner = (all.find((t) => t.type === 'reward')!.action as { author: string }).author;
    const created = (all.find((t) => t.type === 'create')!.result as { address: string }).address;
    const callee = (all.find((t) => t.type === 'call' && t.blockNumber > 30)!.action as { to: string }).to;
    const queries = product({
      blocks: [
        [undefined, undefined],
        ['earliest', 'latest'],
        ['0x3', '0x10'],
        ['0x20', 'pending'],
        ['0x30', '0x100'],
        ['0x10', '0x3'],
      ],
      addresses: [undefined, [sender], [miner, created], [callee, '0x00000000000000000000000000000000000000ff']],
      modes: [undefined, 'union', 'intersection'],
      afters: [undefined, 0, 7],
      counts: [undefined, 0, 5],
    });
    let n = 0;
    let nonEmpty = 0;
    for (const query of queries) {
      const got = await runFilter(ctx, query);
      expect(got, JSON.stringify(query)).toEqual(bruteForce(all, head, query, MAX_RESULTS));
      if (Array.isArray(got) && got.length > 0) nonEmpty++;
      n++;
    }
    expect(n).toBe(6 * 4 * 4 * 3 * 3 * 3);
    expect(nonEmpty).toBeGreaterThan(n / 4);
  });

  it('the result limit: more than the limit → -32005 (no truncation); after/count pages stay under it', async () => {
    const limited: EthContext = {
      ...ctx,
      limits: ethLimits(testConfig({ rpc: { traceFilterMaxResults: 40 } })),
    };
    const whole = { fromBlock: 'earliest', toBlock: 'latest' };
    const err = await wireError(methods.trace_filter.call(limited, [whole]));
    expect(err).toEqual({
      code: -32005,
      message: 'query returned more than 40 results',
      data: 'narrow the block range, add addresses, or page with after and count',
    });
    // pages of 40 walk the whole chain
    const pages: RpcTrace[] = [];
    for (let after = 0; after < all.length; after += 40) {
      pages.push(...((await methods.trace_filter.call(limited, [{ ...whole, after, count: 40 }])) as RpcTrace[]));
    }
    expect(pages).toEqual(all);
    // a count above the limit is fine while the answer fits, refused when it does not
    expect(await methods.trace_filter.call(limited, [{ ...whole, after: all.length - 10, count: 1000 }])).toEqual(all.slice(-10));
    expect((await wireError(methods.trace_filter.call(limited, [{ ...whole, count: 41 }]))).code).toBe(-32005);
    expect(MAX_RESULTS).toBe(10_000);
    // the combinations again under a small limit, so that the error path meets every shape
    const queries = product({
      blocks: [
        ['earliest', 'latest'],
        ['0x3', '0x10'],
      ],
      addresses: [undefined, [sender]],
      modes: [undefined, 'intersection'],
      afters: [undefined, 30],
      counts: [undefined, 40, 41],
    });
    for (const query of queries) {
      expect(await runFilter(limited, query), JSON.stringify(query)).toEqual(bruteForce(all, head, query, 40));
    }
  });

  it('the block-range cap (off by default): wider ranges → -32602 with reth’s text', async () => {
    const capped: EthContext = {
      ...ctx,
      limits: ethLimits(testConfig({ rpc: { traceFilterMaxBlocks: 10 } })),
    };
    expect(await wireError(methods.trace_filter.call(capped, [{ fromBlock: '0x1', toBlock: '0xc' }]))).toEqual({
      code: -32602,
      message: 'Block range too large; currently limited to 10 blocks',
    });
    expect(await methods.trace_filter.call(capped, [{ fromBlock: '0x1', toBlock: '0xb' }])).toEqual(
      all.filter((t) => t.blockNumber >= 1 && t.blockNumber <= 11),
    );
    expect(await methods.trace_filter.call(ctx, [{ fromBlock: '0x0', toBlock: '0x36' }])).toEqual(all);
  });

  it('params errors → -32602', async () => {
    const bad: unknown[] = [
      [{ fromBlock: '0x5', toBlock: '0x4' }],
      [{ fromBlock: 'latest', toBlock: 'earliest' }],
      [{ fromBlock: '0x1', toBlock: '0x2', limit: 3 }],
      [{ fromAddress: ['0x1234'] }],
      [{ toAddress: '0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f' }],
      [{ mode: 'and' }],
      [{ after: -1 }],
      [{ count: '0x5' }],
      [{ count: 1.5 }],
      [{ fromBlock: 'safe' }],
      [{ fromBlock: '0x01' }],
      ['latest'],
      [[]],
      [],
      [{}, {}],
    ];
    for (const params of bad) {
      const err = await wireError(methods.trace_filter.call(ctx, params));
      expect(err.code, JSON.stringify(params)).toBe(-32602);
    }
    expect((await wireError(methods.trace_filter.call(ctx, [{ fromBlock: '0x5', toBlock: '0x4' }]))).message).toBe(
      'invalid parameters: fromBlock cannot be greater than toBlock',
    );
    expect((await wireError(methods.trace_filter.call(ctx, [{ limit: 3 }]))).message).toMatch(/^invalid argument 0: unknown field `limit`/);
    // null means absent
    expect(
      await methods.trace_filter.call(ctx, [{ fromBlock: '0x3', toBlock: '0x3', fromAddress: null, toAddress: null, mode: null, after: null, count: null }]),
    ).toEqual(all.filter((t) => t.blockNumber === 3));
  });

  it('with addresses only the indexed blocks are replayed; without, the scan stops at after + count', async () => {
    // Counts what the method asks for (served from the file's warm cache: the count is what matters).
    const tracer = countingTracer(tracerOf(ctx));
    const counted: EthContext = { ...ctx, tracer };
    const blocksWithSender = new Set(all.filter((t) => sidesOf(t).includes(sender)).map((t) => t.blockNumber));
    await methods.trace_filter.call(counted, [{ fromBlock: 'earliest', toAddress: [sender] }]);
    const toSender = new Set(all.filter((t) => sidesOf(t)[1] === sender).map((t) => t.blockNumber));
    expect(tracer.asked.map(Number)).toEqual([...toSender].sort((x, y) => x - y));
    tracer.asked.length = 0;
    await methods.trace_filter.call(counted, [{ fromBlock: 'earliest', fromAddress: [sender] }]);
    expect(tracer.asked.length).toBeLessThanOrEqual(blocksWithSender.size);
    tracer.asked.length = 0;
    const page = (await methods.trace_filter.call(counted, [{ fromBlock: '0x1', toBlock: 'latest', after: 3, count: 2 }])) as RpcTrace[];
    expect(page).toEqual(all.filter((t) => t.blockNumber >= 1).slice(3, 5));
    // traces 3 and 4 are in the first two blocks (4 + 59 transactions); one block may be prefetched
    expect(tracer.asked.length).toBeLessThanOrEqual(3);
  });

  it('the index names exactly the blocks where an address is on each side', async () => {
    const addresses = new Set(all.flatMap((t) => sidesOf(t)).filter((a): a is string => a !== undefined));
    expect(await readIndexHead(chain.level)).toBe(54n);
    for (const address of addresses) {
      for (const side of [0, 1] as const) {
        const want = [...new Set(all.filter((t) => sidesOf(t)[side] === address).map((t) => BigInt(t.blockNumber)))];
        const got: bigint[] = [];
        const query = {
          fromAddresses: side === 0 ? [hexToBytes(address as `0x${string}`)] : [],
          toAddresses: side === 1 ? [hexToBytes(address as `0x${string}`)] : [],
          mode: 'union' as const,
          fromBlock: 0n,
          toBlock: 54n,
        };
        for await (const n of indexedBlocks(chain.level, query)) got.push(n);
        expect(got, `${address} side ${side}`).toEqual(want);
      }
    }
  });
});

describe('trace_filter on the demo chain (nested calls, creates, suicide)', () => {
  const fixture = tempDir();
  const datadir = tempDir();
  let chain: EthereumChain;
  let ctx: EthContext;
  let all: RpcTrace[];
  const head = 4;
  const h = (b: Uint8Array) => bytesToHex(b);

  beforeAll(async () => {
    await buildDemoChain(fixture.dir);
    chain = await importFixtureChain(fixture.dir, datadir.dir);
    ctx = await createEthContext(chain, 'test', testConfig());
    all = await allTraces(ctx, head);
  });
  afterAll(async () => {
    await chain?.close();
    datadir.cleanup();
    fixture.cleanup();
  });

  const combos = () =>
    product({
      blocks: [
        ['earliest', undefined],
        ['0x1', '0x1'],
        ['0x2', '0x4'],
      ],
      addresses: [undefined, [h(DEMO.router)], [h(DEMO.ret42), h(DEMO.suicide)], [h(DEMO.beneficiary), h(DEMO.factory), h(DEMO.miner)], [h(SENDER)]],
      modes: [undefined, 'intersection'],
      afters: [undefined, 2],
      counts: [undefined, 3],
    });

  /** The index entries in the database, sorted, as hex pairs. */
  const storedIndex = async () => {
    const stored: string[][] = [];
    for await (const [key, value] of chain.level.iterator({ gte: Uint8Array.of(TRACE_INDEX_PREFIX), lt: Uint8Array.of(TRACE_INDEX_PREFIX + 1) }))
      stored.push([h(key), h(value)]);
    return stored.sort();
  };
  let importedIndex: string[][];

  it('import writes the index in each block batch: index head is the chain head', async () => {
    expect(await readIndexHead(chain.level)).toBe(BigInt(head));
    importedIndex = await storedIndex();
    // e.g. the beneficiary is on the to side (suicide) in block 1 only; the suicide contract on
    // both sides in block 1 (router → it, its suicide) and on the to side in block 4
    const entry = (address: Uint8Array, block: bigint) =>
      importedIndex.find(([key]) => key === h(Uint8Array.from([TRACE_INDEX_PREFIX, ...address, ...new Uint8Array(7), Number(block)])))?.[1];
    expect(entry(DEMO.beneficiary, 1n)).toBe('0x02');
    expect(entry(DEMO.suicide, 1n)).toBe('0x03');
    expect(entry(DEMO.suicide, 4n)).toBe('0x02');
    expect(entry(DEMO.identity, 1n)).toBe('0x02'); // the call with value; the zero-value one is not a trace
    expect(entry(DEMO.miner, 3n)).toBe('0x02');
  });

  it('without the index (a database from before it: entries and head removed), every block is scanned and results equal the brute force; reindex-traces rebuilds exactly what import wrote', async () => {
    const ops: BatchOp[] = (await storedIndex()).map(([key]) => ({ type: 'del', key: hexToBytes(key as `0x${string}`) }));
    ops.push({ type: 'del', key: hexToBytes(`0x${'6d'}${Buffer.from('traceIndexHead').toString('hex')}`) });
    await chain.level.batch(ops);
    expect(await readIndexHead(chain.level)).toBe(0n);
    for (const query of combos()) expect(await runFilter(ctx, query), JSON.stringify(query)).toEqual(bruteForce(all, head, query, MAX_RESULTS));
    await reindexTraceAddresses(chain, { tracer: tracerOf(ctx) });
    expect(await readIndexHead(chain.level)).toBe(BigInt(head));
    expect(await storedIndex()).toEqual(importedIndex);
  });

  it('with the index: every combination equals the brute force', async () => {
    expect(await readIndexHead(chain.level)).toBe(BigInt(head));
    for (const query of combos()) expect(await runFilter(ctx, query), JSON.stringify(query)).toEqual(bruteForce(all, head, query, MAX_RESULTS));
  });

  it('re-indexing again is a no-op', async () => {
    expect(await reindexTraceAddresses(chain, { trieNodeEntries: testConfig().caches.trieNodeEntries })).toEqual({ indexed: 0, head: BigInt(head) });
  });
});
