/**
 * The bench's chains and their cache (bench/.cache): the `bench` chain generated on anvil by
 * scripts/anvilChain.ts and imported into tracenode (with the import figures, tracenode's next
 * to raw @ethereumjs/vm's), the demo chain (fixtures/demo, which has uncles) and the Starknet
 * bench chain of bench/starknetEvents.ts. This file is the bench's one user of the generator:
 * the bench users' addresses and the Token's storage layout come from here too.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { ANVIL_BIN, accountFor, buildAnvilChain, mappingSlot } from '../scripts/anvilChain.js';
import { DEFAULTS } from './options.js';
import { BENCH_DIR, REPO, runCommand, TSX, tracenodeArgs } from './processes.js';
import { type ImportFigures, type ImportSpeed, round, type StarknetBenchResult } from './results.js';

/** The generator's source, hashed into the cache key: the file the import above names. */
const GENERATOR_SOURCE = join(REPO, 'scripts/anvilChain.ts');

/** Token.sol keeps `balanceOf` in slot 3: the storage key of `holder`'s balance. */
export const balanceSlot = (holder: string): string => mappingSlot(holder, 3);

/** The address of the bench scenario's user `i` (user0 is the token holder). */
export const benchUser = (i: number): string => accountFor(`user${i}`).address;

const Hex = z.string().regex(/^0x[0-9a-fA-F]*$/);
const Call = z.object({ to: Hex, data: Hex, note: z.string() });

/** What the bench reads of the generator's expected.json; a missing field fails loudly. */
const BenchChainSchema = z.object({
  head: z.object({ number: z.number(), hash: Hex }),
  txCount: z.number(),
  contracts: z.object({ tokenA: Hex, tokenB: Hex, pair: Hex, nft: Hex, heavy: Hex, factory: Hex }),
  rareAddress: Hex,
  rareBlocks: z.array(z.number()),
  bench: z.object({
    token: Hex,
    holder: Hex,
    balanceOfCalldata: Hex,
    heavyCall: Call,
    revertingCall: Call.extend({ from: Hex }),
    heaviestBlock: z.number(),
    heaviestBlockGasUsed: z.number(),
    heaviestBlockTx: Hex,
  }),
});

/** The bench chain as the generator describes it: head, contracts, the accounts and blocks cases ask about. */
export type BenchChain = z.infer<typeof BenchChainSchema>;

function readBenchChain(expectedPath: string): BenchChain {
  const parsed = BenchChainSchema.safeParse(JSON.parse(readFileSync(expectedPath, 'utf8')));
  if (!parsed.success) throw new Error(`${relative(REPO, expectedPath)}: not the bench scenario's expected.json: ${parsed.error.message}`);
  return parsed.data;
}

function sha(...parts: (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex').slice(0, 12);
}

function fileHash(paths: string[]): string {
  const h = createHash('sha256');
  for (const p of paths) {
    h.update(relative(REPO, p));
    h.update(readFileSync(p));
  }
  return h.digest('hex').slice(0, 12);
}

function schemaVersion(): string {
  const m = /SCHEMA_VERSION\s*=\s*(\d+)/.exec(readFileSync(join(REPO, 'src/db/keys.ts'), 'utf8'));
  return m ? m[1] : '?';
}

/** anvil's version line, for the machine description. */
export function anvilVersion(): string {
  try {
    const first = execFileSync(ANVIL_BIN, ['--version'], { encoding: 'utf8' }).split('\n')[0].trim();
    return first.replace(/^anvil Version:\s*/i, 'anvil ');
  } catch {
    return 'unknown';
  }
}

/** The generator's inputs: its source, the Solidity sources, the scenario and height, anvil and solc. */
function chainKey(blocks: number): string {
  const solDir = join(REPO, 'scripts/anvil');
  const sols = readdirSync(solDir)
    .filter((f) => f.endsWith('.sol'))
    .sort()
    .map((f) => join(solDir, f));
  const pkgVersion = (p: string) => {
    try {
      return (JSON.parse(readFileSync(join(REPO, 'node_modules', p, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      return '?';
    }
  };
  return `bench-${blocks}-${sha(fileHash([GENERATOR_SOURCE, ...sols]), pkgVersion('@foundry-rs/anvil-linux-amd64'), pkgVersion('solc'), `schema${schemaVersion()}`)}`;
}

function parseImportLine(text: string): ImportSpeed | undefined {
  const m = /import: done, (\d+) blocks imported, \d+ already present, in ([\d.]+) s \(([\d.]+) blocks\/s, ([\d.]+) Mgas\/s\)/.exec(text);
  return m ? { blocks: Number(m[1]), seconds: Number(m[2]), blocksPerSecond: Number(m[3]), mgasPerSecond: Number(m[4]) } : undefined;
}

/** init + import into a fresh datadir; returns tracenode's own import figures. */
async function importChain(datadir: string, genesis: string, rlp: string, blocks: number, log: (l: string) => void): Promise<ImportSpeed> {
  rmSync(datadir, { recursive: true, force: true });
  const init = await runCommand(process.execPath, tracenodeArgs('init', '--datadir', datadir, '--genesis', genesis), { timeoutMs: 120_000 });
  if (init.code !== 0) throw new Error(`tracenode init failed:\n${init.stderr || init.stdout}`);
  let last = 0;
  const imp = await runCommand(process.execPath, tracenodeArgs('import', '--datadir', datadir, rlp), {
    timeoutMs: Math.max(15 * 60_000, blocks * 3000),
    onLine: (l) => {
      if (Date.now() - last > 15_000 || l.includes('done')) {
        last = Date.now();
        log(`  ${l.trim()}`);
      }
    },
  });
  if (imp.code !== 0) throw new Error(`tracenode import failed:\n${(imp.stderr || imp.stdout).slice(-3000)}`);
  const figures = parseImportLine(imp.stderr + imp.stdout);
  if (!figures) throw new Error(`tracenode import: no summary line in its output:\n${imp.stderr.slice(-2000)}`);
  return figures;
}

/** The `--json` line of bench/rawExecution.ts. */
const RawExecutionSchema = z.object({
  blocks: z.number(),
  gasUsed: z.number(),
  execSeconds: z.number(),
  blocksPerSecond: z.number(),
  mgasPerSecond: z.number(),
});

/** Raw @ethereumjs/vm on the same blocks, next to tracenode's figures. */
async function measureImport(genesis: string, rlp: string, tn: ImportSpeed, blocks: number): Promise<ImportFigures> {
  const raw = await runCommand(process.execPath, [...TSX, join(BENCH_DIR, 'rawExecution.ts'), genesis, rlp, '--json'], {
    timeoutMs: Math.max(15 * 60_000, blocks * 3000),
  });
  if (raw.code !== 0) throw new Error(`raw execution failed:\n${raw.stderr.slice(-3000)}`);
  const r = RawExecutionSchema.parse(JSON.parse(raw.stdout.trim().split('\n').pop() ?? ''));
  return {
    measuredAt: new Date().toISOString(),
    tracenode: tn,
    raw: {
      blocks: r.blocks,
      seconds: round(r.execSeconds, 1),
      blocksPerSecond: round(r.blocksPerSecond, 1),
      mgasPerSecond: round(r.mgasPerSecond),
      gasUsed: r.gasUsed,
    },
    ratio: { blocks: round(tn.blocksPerSecond / r.blocksPerSecond), mgas: round(tn.mgasPerSecond / r.mgasPerSecond) },
  };
}

/** The bench chain, imported into tracenode and served by anvil. */
export interface ChainReady {
  key: string;
  dir: string;
  datadir: string;
  expected: BenchChain;
  cached: boolean;
  anvil: { url: string; stop: () => Promise<void>; cpuSeconds: () => number | undefined };
  anvilBoot: string;
  generateSeconds: number;
  importFigures?: ImportFigures;
}

/**
 * The bench chain of `blocks` blocks: generated on anvil and imported into tracenode, or taken
 * from the cache; either way anvil keeps serving it (on a cached run it mines the chain again,
 * which must end on the cached head hash). `fresh`: import again even when the cache has it.
 */
export async function prepareChain(cacheRoot: string, blocks: number, fresh: boolean, log: (l: string) => void): Promise<ChainReady> {
  const key = chainKey(blocks);
  const dir = join(cacheRoot, key);
  const chainDir = join(dir, 'chain');
  const datadir = join(dir, 'tracenode');
  const importFile = join(dir, 'import.json');
  const haveChain = existsSync(join(chainDir, 'expected.json')) && existsSync(join(chainDir, 'chain.rlp'));
  const haveImport = haveChain && existsSync(importFile) && existsSync(datadir) && !fresh;
  mkdirSync(dir, { recursive: true });

  // anvil: the instance that mines the chain keeps serving it.
  const t0 = performance.now();
  let anvil: ChainReady['anvil'];
  let anvilBoot: string;
  if (haveChain) {
    log(`chain: cached in ${relative(REPO, chainDir)}; mining it again on anvil (deterministic) for anvil to serve…`);
    const scratch = mkdtempSync(join(tmpdir(), 'tracenode-bench-anvil-'));
    try {
      const built = await buildAnvilChain({ outDir: scratch, scenario: 'bench', blocks, keepRunning: true });
      const cachedHead = readBenchChain(join(chainDir, 'expected.json')).head;
      const again = readBenchChain(built.expectedPath).head;
      if (again.hash !== cachedHead.hash) {
        await built.anvil!.stop();
        throw new Error(
          `anvil mined a different chain than the cached one (head ${again.hash} vs ${cachedHead.hash}): remove ${relative(REPO, dir)} and run again`,
        );
      }
      anvil = built.anvil!;
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    anvilBoot = 'the anvil instance that re-mined the cached chain (same head hash) keeps serving it (buildAnvilChain keepRunning)';
  } else {
    log(`chain: generating ${blocks} blocks on anvil into ${relative(REPO, chainDir)}…`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(chainDir, { recursive: true });
    const built = await buildAnvilChain({ outDir: chainDir, scenario: 'bench', blocks, keepRunning: true, log: (m) => log(`  ${m}`) });
    anvil = built.anvil!;
    anvilBoot = 'the anvil instance that mined the chain keeps serving it (buildAnvilChain keepRunning)';
  }
  const generateSeconds = (performance.now() - t0) / 1000;
  log(`chain: anvil ready at ${anvil.url} (${generateSeconds.toFixed(0)} s)`);

  let expected: BenchChain;
  let importFigures: ImportFigures;
  try {
    expected = readBenchChain(join(chainDir, 'expected.json'));
    if (haveImport) {
      // written by this function when it measured them
      importFigures = JSON.parse(readFileSync(importFile, 'utf8')) as ImportFigures;
      log(`import: cached datadir (figures measured ${importFigures.measuredAt})`);
    } else {
      rmSync(importFile, { force: true });
      log(`import: tracenode import of ${blocks} blocks…`);
      const genesis = join(chainDir, 'genesis.json');
      const rlp = join(chainDir, 'chain.rlp');
      const tn = await importChain(datadir, genesis, rlp, blocks, log);
      log(`import: tracenode ${tn.blocksPerSecond} blocks/s, ${tn.mgasPerSecond} Mgas/s; raw @ethereumjs/vm on the same blocks…`);
      importFigures = await measureImport(genesis, rlp, tn, blocks);
      writeFileSync(importFile, `${JSON.stringify(importFigures, null, 1)}\n`);
      log(`import: raw ${importFigures.raw.blocksPerSecond} blocks/s, ${importFigures.raw.mgasPerSecond} Mgas/s → tracenode/raw ${importFigures.ratio.blocks}`);
    }
  } catch (err) {
    await anvil.stop();
    throw err;
  }
  return { key, dir, datadir, expected, cached: haveImport, anvil, anvilBoot, generateSeconds, importFigures };
}

/** The demo chain (fixtures/demo, which has uncles) imported into the cache; returns its datadir. */
export async function prepareDemo(cacheRoot: string, log: (l: string) => void): Promise<string> {
  const genesis = join(REPO, 'fixtures/demo/genesis.json');
  const rlp = join(REPO, 'fixtures/demo/chain.rlp');
  const dir = join(cacheRoot, `demo-${sha(fileHash([genesis, rlp]), `schema${schemaVersion()}`)}`);
  const datadir = join(dir, 'tracenode');
  if (existsSync(join(dir, 'done'))) return datadir;
  log('demo chain: importing fixtures/demo…');
  mkdirSync(dir, { recursive: true });
  await importChain(datadir, genesis, rlp, 64, () => {});
  writeFileSync(join(dir, 'done'), new Date().toISOString());
  return datadir;
}

/** Runs bench/starknetEvents.ts (its chain kept in the cache) and parses its table; returns the chain's datadir too. */
export async function runStarknetBench(cacheRoot: string, quick: boolean, log: (l: string) => void): Promise<{ datadir: string; result: StarknetBenchResult }> {
  const script = join(BENCH_DIR, 'starknetEvents.ts');
  const mode = quick ? DEFAULTS.quick.starknet : DEFAULTS.full.starknet;
  const dir = join(cacheRoot, `starknet-${quick ? 'quick' : 'full'}-${sha(fileHash([script]), `schema${schemaVersion()}`)}`);
  const datadir = join(dir, 'datadir');
  if (!existsSync(join(dir, 'done'))) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const args = [...mode, '--keep', datadir];
  log(`starknet: bench/starknetEvents.ts ${args.join(' ')}…`);
  const t0 = performance.now();
  const r = await runCommand(process.execPath, [...TSX, script, ...args], { timeoutMs: 30 * 60_000 });
  if (r.code !== 0) throw new Error(`bench/starknetEvents.ts failed:\n${(r.stderr || r.stdout).slice(-3000)}`);
  writeFileSync(join(dir, 'done'), new Date().toISOString());
  const rows: StarknetBenchResult['rows'] = [];
  for (const line of r.stdout.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 7 || !/^[\d.]+$/.test(cells[3] ?? '')) continue;
    rows.push({ query: cells[1], events: cells[2], medianMs: Number(cells[3]), p99Ms: Number(cells[4]), note: cells[5] });
  }
  if (rows.length === 0) throw new Error(`bench/starknetEvents.ts: no table in its output:\n${r.stdout.slice(-2000)}`);
  const importLine = r.stdout.split('\n').find((l) => l.startsWith('import:'));
  // The recorded arguments name the datadir relative to the repository: results files are committed.
  const recorded = [...mode, '--keep', relative(REPO, datadir)];
  return { datadir, result: { args: recorded, rows, importLine, seconds: round((performance.now() - t0) / 1000, 1) } };
}
