/**
 * What one eth_call costs in process: the bench's view call (an ERC-20 `balanceOf(holder)` at
 * latest, the request of the "eth_call view (balanceOf)" case) straight through a call engine built
 * on this thread as an EVM worker builds its own (`openChain`, a `StateReader`, `createCallEngine`;
 * `engine.call(header, request, {})`, no JSON-RPC, no HTTP, no thread hop), next to a trivial call
 * (no data, to an address without code) that runs no bytecode, so that the difference separates
 * the EVM's execution from the per-call set-up (message, overlay, EVM re-pointing, result). With
 * --workers, a third row runs the balanceOf call through the worker pool as the server does
 * (`createEthContext(...).execution`): what the thread round trip adds. Each figure is the median
 * of several rounds of many calls, in µs per call, after a warm-up that fills the state read cache.
 *
 *   npx tsx bench/callCosts.ts [--datadir DIR] [--to 0x… --data 0x…] [--calls 2000] [--rounds 7] [--workers] [--plain] [--json]
 *
 * --plain runs @ethereumjs/evm as published (`execution.evmFastPaths` off): what the patches of
 * src/execution/evm/ save.
 *
 * Without --datadir it opens the bench's cached chain (the newest bench/.cache/bench-2000-*, whose
 * chain/expected.json names the token and holder) or, when there is none, imports the demo chain
 * (fixtures/demo, DemoToken.balanceOf(alice)) into a temporary directory. A datadir is copied to a
 * temporary directory first (LevelDB allows one process, and the bench's server may hold it);
 * --in-place opens it where it is.
 */
import { cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { hexToBytes } from '@ethereumjs/util';
import { type EthereumChain, openChain } from '../src/chain/open.js';
import { defaultConfig } from '../src/config/settings.js';
import type { CallRequest } from '../src/execution/callArgs.js';
import { createCallEngine } from '../src/execution/callEngine.js';
import { importBlocks } from '../src/import/importChain.js';
import { initDatadir } from '../src/import/init.js';
import { createEthContext } from '../src/methods/context.js';
import { StateReader } from '../src/state/stateReader.js';

export interface CallCost {
  call: string;
  /** Median over the rounds of the mean µs per call in a round. */
  microsPerCall: number;
  /** The fastest and slowest round, for the noise. */
  minRound: number;
  maxRound: number;
  calls: number;
  rounds: number;
}

export interface CallCosts {
  datadir: string;
  block: string;
  to: string;
  data: string;
  costs: CallCost[];
  /** balanceOf minus the trivial call: what running the token's bytecode adds. */
  executionMicros: number;
}

const REPO = resolve(import.meta.dirname, '..');
const BENCH_CACHE = join(REPO, 'bench/.cache');
const DEMO = join(REPO, 'fixtures/demo');
const DEMO_TOKEN = '0xeea13157ec6225f61188ad9fdeb0f44c0852f4f4';
const DEMO_ALICE = '0x0bffd7cc70e8543fae33a3695182b4ecab0386ea';
const DEMO_CHAIN_ID = 271828;
/** No code on any chain the bench uses: the trivial call's recipient. */
const CODELESS = '0x000000000000000000000000000000000000dead';

const balanceOf = (holder: string) => `0x70a08231${holder.slice(2).toLowerCase().padStart(64, '0')}`;

/** The newest cached bench chain of 2000 blocks, if any. */
function cachedBenchDatadir(): string | undefined {
  if (!existsSync(BENCH_CACHE)) return undefined;
  const dirs = readdirSync(BENCH_CACHE)
    .filter((d) => d.startsWith('bench-2000-') && existsSync(join(BENCH_CACHE, d, 'tracenode')))
    .map((d) => join(BENCH_CACHE, d))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return dirs.length > 0 ? join(dirs[0], 'tracenode') : undefined;
}

/** The bench case's balanceOf call for a bench datadir (from its generator's expected.json). */
function benchCall(datadir: string): { to: string; data: string } | undefined {
  const expected = join(dirname(datadir), 'chain/expected.json');
  if (!existsSync(expected)) return undefined;
  const b = (JSON.parse(readFileSync(expected, 'utf8')) as { bench?: { token?: string; balanceOfCalldata?: string } }).bench;
  return b?.token && b.balanceOfCalldata ? { to: b.token, data: b.balanceOfCalldata } : undefined;
}

async function timeIt(calls: number, rounds: number, run: () => Promise<unknown>): Promise<Omit<CallCost, 'call'>> {
  for (let i = 0; i < Math.max(500, calls / 4); i++) await run(); // warm-up: JIT, read cache, EVM pool
  const perRound: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) await run();
    perRound.push(((performance.now() - t0) * 1000) / calls);
  }
  perRound.sort((a, b) => a - b);
  return { microsPerCall: perRound[Math.floor(perRound.length / 2)], minRound: perRound[0], maxRound: perRound[perRound.length - 1], calls, rounds };
}

export interface CallCostOptions {
  datadir?: string;
  to?: string;
  data?: string;
  calls?: number;
  rounds?: number;
  /** Open the datadir where it is instead of a temporary copy. */
  inPlace?: boolean;
  /** Also time the balanceOf call through the EVM worker pool (the server's path). */
  workers?: boolean;
  /** Runs @ethereumjs/evm as published (`execution.evmFastPaths` off), to measure what the fast paths save. */
  plain?: boolean;
  log?: (line: string) => void;
}

/** Opens (or builds) the chain, measures the balanceOf call and the trivial call. */
export async function measureCallCosts(opts: CallCostOptions = {}): Promise<CallCosts> {
  const calls = opts.calls ?? 2000;
  const rounds = opts.rounds ?? 7;
  const config = defaultConfig();
  config.execution.evmFastPaths = opts.plain !== true;
  const temp = mkdtempSync(join(tmpdir(), 'tracenode-callcosts-'));
  let chain: EthereumChain | undefined;
  try {
    const source = opts.datadir ?? cachedBenchDatadir();
    let call: { to: string; data: string } | undefined;
    if (source === undefined) {
      opts.log?.('call costs: no cached bench chain; importing fixtures/demo…');
      const datadir = join(temp, 'demo');
      await initDatadir(datadir, readFileSync(join(DEMO, 'genesis.json'), 'utf8'), config);
      chain = await openChain(datadir, config.caches);
      await importBlocks(chain, [readFileSync(join(DEMO, 'chain.rlp'))], config.import);
    } else {
      let datadir = resolve(source);
      call = benchCall(datadir);
      if (!opts.inPlace) {
        const copy = join(temp, 'datadir');
        // A serving node's control socket lives in its datadir: sockets are not copied.
        cpSync(datadir, copy, { recursive: true, filter: (path) => !lstatSync(path).isSocket() });
        datadir = copy;
      }
      chain = await openChain(datadir, config.caches);
    }
    if (opts.to !== undefined || opts.data !== undefined) {
      if (opts.to === undefined || opts.data === undefined) throw new Error('--to and --data go together');
      call = { to: opts.to, data: opts.data };
    }
    if (call === undefined && Number(chain.common.chainId()) === DEMO_CHAIN_ID) call = { to: DEMO_TOKEN, data: balanceOf(DEMO_ALICE) };
    if (call === undefined) throw new Error(`${source}: not a bench or demo datadir; give the call with --to and --data`);

    // The call engine as an EVM worker builds it (src/workers/evmWorker.ts), on this thread.
    const state = new StateReader(chain.level, config.caches);
    const engine = createCallEngine({ store: chain.store, common: chain.common, reads: state.reads, settings: config.execution });
    const header = await chain.store.headHeader();
    if (!header) throw new Error('the datadir has no blocks');
    const request: CallRequest = { to: hexToBytes(call.to as `0x${string}`), data: hexToBytes(call.data as `0x${string}`) };
    const trivial: CallRequest = { to: hexToBytes(CODELESS) };

    const first = await engine.call(header, request, {});
    if (first.failure || first.returnValue.length !== 32 || first.returnValue.every((b) => b === 0)) {
      throw new Error(`balanceOf: not a non-zero word: ${JSON.stringify(first.failure)} ${Buffer.from(first.returnValue).toString('hex')}`);
    }
    const costs: CallCost[] = [];
    for (const [name, req] of [
      ['eth_call balanceOf (view)', request],
      ['eth_call to an address without code (set-up only)', trivial],
    ] as const) {
      const t = await timeIt(calls, rounds, () => engine.call(header, req, {}));
      costs.push({ call: name, ...t });
      opts.log?.(`call costs: ${name} ${t.microsPerCall.toFixed(1)} µs`);
    }
    if (opts.workers) {
      // The server's path: one job at a time through the worker pool (a thread round trip each).
      // The result cache off: each call must run, as a distinct call would.
      const ctx = await createEthContext(chain, 'bench', { ...config, execution: { ...config.execution, callCacheBytes: 0 } });
      try {
        const name = 'eth_call balanceOf (view) through the EVM workers';
        const t = await timeIt(calls, rounds, () => ctx.execution.call(header, request, {}));
        costs.push({ call: name, ...t });
        opts.log?.(`call costs: ${name} ${t.microsPerCall.toFixed(1)} µs`);
      } finally {
        await ctx.evm.close();
      }
    }
    return {
      datadir: source ?? 'fixtures/demo (imported)',
      block: `${header.number}`,
      to: call.to,
      data: call.data,
      costs,
      executionMicros: costs[0].microsPerCall - costs[1].microsPerCall,
    };
  } finally {
    await chain?.close();
    rmSync(temp, { recursive: true, force: true });
  }
}

/** The costs as a Markdown table. */
export function renderCallCosts(c: CallCosts): string {
  const rows = c.costs.map(
    (x) => `| ${x.call} | ${x.microsPerCall.toFixed(1)} | ${x.minRound.toFixed(1)}–${x.maxRound.toFixed(1)} | ${x.rounds} × ${x.calls} |`,
  );
  return [
    `eth_call in process at block ${c.block} (${c.datadir}); balanceOf = \`${c.to}\` \`${c.data.slice(0, 10)}…\``,
    '',
    '| call | µs per call (median round) | rounds (min–max) | calls |',
    '|---|---|---|---|',
    ...rows,
    `| execution (balanceOf − trivial) | ${c.executionMicros.toFixed(1)} | | |`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      datadir: { type: 'string' },
      to: { type: 'string' },
      data: { type: 'string' },
      calls: { type: 'string' },
      rounds: { type: 'string' },
      'in-place': { type: 'boolean' },
      workers: { type: 'boolean' },
      plain: { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  const costs = await measureCallCosts({
    datadir: values.datadir,
    to: values.to,
    data: values.data,
    calls: values.calls ? Number(values.calls) : undefined,
    rounds: values.rounds ? Number(values.rounds) : undefined,
    inPlace: values['in-place'],
    workers: values.workers,
    plain: values.plain,
    log: values.json ? undefined : (l) => process.stderr.write(`${l}\n`),
  });
  process.stdout.write(values.json ? `${JSON.stringify(costs)}\n` : `${renderCallCosts(costs)}\n`);
}
