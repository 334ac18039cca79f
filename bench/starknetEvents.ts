/**
 * Benchmark of the Starknet event store and `starknet_getEvents` (not a test; `npm test` never
 * runs it). Generates a synthetic chain, imports it through the NDJSON importer, and times
 * queries through the method table, as the server calls them.
 *
 *   npx tsx bench/starknetEvents.ts            # 10,000 blocks, 1,000,000 events
 *   npx tsx bench/starknetEvents.ts --quick    # 1,000 blocks, 100,000 events
 *   npx tsx bench/starknetEvents.ts --blocks 5000 --events 500000 --runs 100 --keep bench/.cache/sn
 *
 * The chain: `--contracts` contracts (1,000) each emitting events under 10 of `--keys` event
 * selectors (100), uniformly, ~4 events per transaction, ~100 events per block. Half of the
 * selectors are Transfer-like (`keys = [selector, from, to]` over 10,000 accounts, like
 * Cairo 1 ERC-20 events), the others have one key. So one contract has ~1/1,000 of the events,
 * one selector ~1/100, and one contract + selector ~1/10,000 (~100 events at full size).
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultConfig, SETTINGS } from '../src/config/settings.js';
import { closeStarknetContext, createStarknetContext, type StarknetContext, starknetMethods } from '../src/methods/starknet.js';
import type { PlanName } from '../src/starknet/eventPlanner.js';
import { feltToBytes } from '../src/starknet/felt.js';
import { type EventFilter, getEvents } from '../src/starknet/getEvents.js';
import { importStarknetBlocks } from '../src/starknet/importBlocks.js';
import { openStarknetStore } from '../src/starknet/store.js';

/** The Starknet block cache's size: the setting's default. */
const STORE_BLOCK_CACHE = SETTINGS.starknet.blockCacheEntries.default;

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    blocks: { type: 'string' },
    events: { type: 'string' },
    contracts: { type: 'string', default: '1000' },
    keys: { type: 'string', default: '100' },
    runs: { type: 'string', default: '200' },
    keep: { type: 'string' },
  },
});
const BLOCKS = Number(args.blocks ?? (args.quick ? 1_000 : 10_000));
const EVENTS = Number(args.events ?? (args.quick ? 100_000 : 1_000_000));
const CONTRACTS = Number(args.contracts);
const KEYS = Number(args.keys);
const RUNS = Number(args.runs);
const SELECTORS_PER_CONTRACT = 10;
const EVENTS_PER_TX = 4;
const ACCOUNTS = 10_000;

// Deterministic PRNG (mulberry32) so that runs are comparable; reseeded for each pass over the chain.
let seed = 0x5eed;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (n: number) => Math.floor(random() * n);
const CHAIN_SEED = 0xc4a1;
/** A random felt of 248 bits (62 hex digits, always below the prime), spec spelling. */
function felt(): string {
  let s = '';
  for (let i = 0; i < 8; i++)
    s += Math.floor(random() * 2 ** 31)
      .toString(16)
      .padStart(8, '0')
      .slice(0, 8);
  return `0x${s.slice(0, 62).replace(/^0+/, '') || '0'}`;
}

const contracts = Array.from({ length: CONTRACTS }, felt);
const selectors = Array.from({ length: KEYS }, felt);
const accounts = Array.from({ length: ACCOUNTS }, felt);
const contractSelectors = contracts.map(() => Array.from({ length: SELECTORS_PER_CONTRACT }, () => int(KEYS)));

/** The NDJSON lines of the chain, generated lazily. */
function* chainLines(): Generator<string> {
  seed = CHAIN_SEED;
  let emitted = 0;
  for (let b = 0; b < BLOCKS; b++) {
    const target = Math.round(((b + 1) * EVENTS) / BLOCKS);
    const transactions = [];
    while (emitted < target) {
      const n = Math.min(EVENTS_PER_TX, target - emitted);
      const events = [];
      for (let i = 0; i < n; i++) {
        const c = int(CONTRACTS);
        const sel = contractSelectors[c][int(SELECTORS_PER_CONTRACT)];
        const transferLike = sel % 2 === 0;
        events.push({
          from_address: contracts[c],
          keys: transferLike ? [selectors[sel], accounts[int(ACCOUNTS)], accounts[int(ACCOUNTS)]] : [selectors[sel]],
          data: Array.from({ length: 1 + int(4) }, () => `0x${int(2 ** 40).toString(16)}`),
        });
      }
      emitted += n;
      const hash = felt();
      transactions.push({
        transaction: { transaction_hash: hash, type: 'INVOKE', version: '0x3' },
        receipt: { type: 'INVOKE', transaction_hash: hash, execution_status: 'SUCCEEDED', finality_status: 'ACCEPTED_ON_L2', events },
      });
    }
    yield JSON.stringify({
      status: b < BLOCKS - 100 ? 'ACCEPTED_ON_L1' : 'ACCEPTED_ON_L2',
      block_hash: `0x${(0x10000000 + b).toString(16)}${'ab'.repeat(20)}`,
      parent_hash: `0x${(0x10000000 + b - 1).toString(16)}${'ab'.repeat(20)}`,
      block_number: b,
      timestamp: 1_700_000_000 + b * 30,
      transactions,
    });
  }
}

function dirSize(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? dirSize(p) : statSync(p).size;
  }
  return total;
}

function stats(samples: number[]): { median: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], p99: s[Math.min(s.length - 1, Math.ceil(s.length * 0.99) - 1)] };
}

type Page = { events: unknown[]; continuation_token?: string };
const method = starknetMethods.get('starknet_getEvents')!;

async function time(fn: () => Promise<unknown>, runs = RUNS, warmups = 10): Promise<{ median: number; p99: number }> {
  for (let i = 0; i < warmups; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return stats(samples);
}

const rows: string[][] = [];
function row(name: string, matches: string, t: { median: number; p99: number }, note = '') {
  rows.push([name, matches, t.median.toFixed(2), t.p99.toFixed(2), note]);
}

async function main() {
  const dir = args.keep ?? mkdtempSync(join(tmpdir(), 'tracenode-bench-starknet-'));
  console.log(`chain: ${BLOCKS} blocks, ${EVENTS} events, ${CONTRACTS} contracts, ${KEYS} selectors; datadir ${dir}`);

  // 1. Import (generation happens in the same loop; its cost is measured and reported apart).
  const genStart = performance.now();
  let lines = 0;
  for (const _ of chainLines()) lines++;
  const genSecs = (performance.now() - genStart) / 1000;
  const store = await openStarknetStore(dir, { create: true, blockCacheEntries: STORE_BLOCK_CACHE });
  const imp = await importStarknetBlocks(store, chainLines(), { progress: { to: process.stderr, everyMs: 5000 } });
  await store.close();
  const importSecs = imp.seconds - genSecs;
  if (imp.imported === 0) console.log(`import: skipped, the datadir already holds the chain (${imp.skipped} blocks)`);
  else
    console.log(
      `import: ${imp.imported} blocks, ${imp.events} events in ${imp.seconds.toFixed(1)} s including ${genSecs.toFixed(1)} s of generation ` +
        `→ ${Math.round(imp.events / importSecs)} events/s, ${(imp.imported / importSecs).toFixed(0)} blocks/s (parse + validate + write); ` +
        `datadir ${(dirSize(dir) / 2 ** 20).toFixed(0)} MiB (${lines} lines)`,
    );

  const ctx: StarknetContext = createStarknetContext(await openStarknetStore(dir, { blockCacheEntries: STORE_BLOCK_CACHE }), defaultConfig());
  const call = (filter: Record<string, unknown>) => method.call(ctx, { filter }) as Promise<Page>;

  // 2. Selective: one contract + one of its selectors, whole range.
  const sc = contracts[0];
  const ss = selectors[contractSelectors[0][0]];
  const selective = { address: sc, keys: [[ss]], chunk_size: 1024 };
  const selCount = (await call(selective)).events.length;
  row('selective: address + keys[0], whole range', String(selCount), await time(() => call(selective)), 'plan addressKey0 (C index)');
  const lastBlocks = { ...selective, from_block: { block_number: BLOCKS - 1000 } };
  const selLast = (await call(lastBlocks)).events.length;
  row('selective, last 1,000 blocks only', String(selLast), await time(() => call(lastBlocks)));
  const domain: EventFilter = { addresses: [feltToBytes(sc)], keys: [[feltToBytes(ss)]], chunkSize: 1024 };
  for (const plan of ['address', 'key0', 'scan'] as PlanName[]) {
    const runs = plan === 'scan' ? 3 : RUNS;
    const t = await time(() => getEvents(ctx.store, domain, { plan, limits: ctx.eventLimits }), runs, plan === 'scan' ? 1 : 10);
    row(`selective, forced plan ${plan}`, String(selCount), t, plan === 'scan' ? `${runs} runs, store-level call` : 'store-level call, no C index');
  }
  const addrOnly = { address: sc, chunk_size: 1024 };
  row('one address, whole range', String((await call(addrOnly)).events.length), await time(() => call(addrOnly)), 'A index');
  // A recipient account (keys[2] of a Transfer-like event): alone, and with its selector —
  // two `K` streams of very different sizes that the planner probes.
  const firstBlock = JSON.parse(chainLines().next().value as string);
  const sample = firstBlock.transactions
    .flatMap((t: { receipt: { events: { keys: string[] }[] } }) => t.receipt.events)
    .find((e: { keys: string[] }) => e.keys.length === 3);
  const recipientOnly = { keys: [[], [], [sample.keys[2]]], chunk_size: 1024 };
  row('keys [[], [], [recipient]]', String((await call(recipientOnly)).events.length), await time(() => call(recipientOnly)), 'K index, position 2');
  const recipient = { keys: [[sample.keys[0]], [], [sample.keys[2]]], chunk_size: 1024 };
  let used: PlanName | undefined;
  await getEvents(ctx.store, { keys: recipient.keys.map((k) => k.map(feltToBytes)), chunkSize: 1024 }, { limits: ctx.eventLimits, onPlan: (p) => (used = p) });
  row('keys [[selector], [], [recipient]]', String((await call(recipient)).events.length), await time(() => call(recipient)), `planner chose ${used}`);

  // 3. Broad: every event, chunk_size 1024: page 1 vs page 100.
  const broad = { chunk_size: 1024 };
  row('broad {}: page 1', '1024', await time(() => call(broad)));
  let token: string | undefined;
  const walk: number[] = [];
  for (let p = 1; p < 100; p++) {
    const t0 = performance.now();
    const r = await call({ ...broad, ...(token ? { continuation_token: token } : {}) });
    walk.push(performance.now() - t0);
    token = r.continuation_token;
    if (!token) break;
  }
  if (token) {
    const page100 = { ...broad, continuation_token: token };
    row('broad {}: page 100 (token replayed)', '1024', await time(() => call(page100)), `token ${token}`);
    row('broad {}: pages 1-99 walked in order', '1024', stats(walk), 'one sample per page');
  }
  const oneKey = { keys: [[ss]], chunk_size: 1024 };
  row('one selector (keys[0]): page 1', '1024', await time(() => call(oneKey)), 'K index');
  let t2: string | undefined;
  let pages = 0;
  for (;;) {
    const r = await call({ ...oneKey, ...(t2 ? { continuation_token: t2 } : {}) });
    pages++;
    if (!r.continuation_token) break;
    t2 = r.continuation_token;
  }
  if (t2) row(`one selector (keys[0]): page ${pages} (last)`, '≤1024', await time(() => call({ ...oneKey, continuation_token: t2 })));

  await closeStarknetContext(ctx);
  await ctx.store.close();
  if (!args.keep) rmSync(dir, { recursive: true, force: true });

  const head = ['query (through starknet_getEvents)', 'events', 'median ms', 'p99 ms', 'note'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(`\n${line(head)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${rows.map(line).join('\n')}`);
  console.log(`\n${RUNS} runs per row after 10 warm-up calls (scan row: 1 + 3); node ${process.versions.node}.`);
}

await main();
