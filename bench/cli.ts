/**
 * The bench's command line (`npm run bench -- …`, entered through bench/run.ts): the arguments,
 * the help text, and what a run writes: the tables on the terminal, bench/results/<date>.json
 * and BENCHMARKS.md; `--render FILE` rewrites BENCHMARKS.md from a saved results file instead of
 * measuring. The exit code is 1 when any answer was wrong or any case had a problem.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { CASE_NAMES } from './cases.js';
import { type BenchOptions, DEFAULTS } from './options.js';
import { BENCH_DIR, REPO } from './processes.js';
import { renderMarkdown, renderTables } from './report.js';
import { type BenchReport, badCount, SERVERS } from './results.js';
import { runBench } from './runBench.js';
import { evaluateTargets } from './targets.js';

/** The options of a run, and what the command line asks besides. */
export interface CliOptions extends BenchOptions {
  help?: boolean;
  noWrite?: boolean;
  render?: string;
}

/** Parses the bench's arguments (`--flag value` or `--flag=value`); throws on an unknown one. */
export function parseCli(argv: string[]): CliOptions {
  const o: CliOptions = {};
  const num = (flag: string, v: string | undefined) => {
    const n = Number(v);
    if (v === undefined || !Number.isFinite(n) || n < 0) throw new Error(`${flag} needs a non-negative number`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === '--only')
      o.only = [
        ...(o.only ?? []),
        ...(value() ?? '')
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      ];
    else if (flag === '--quick') o.quick = true;
    else if (flag === '--blocks') o.blocks = Math.floor(num(flag, value()));
    else if (flag === '--duration') o.durationS = num(flag, value());
    else if (flag === '--warmup') o.warmupS = num(flag, value());
    else if (flag === '--probe') o.probeS = num(flag, value());
    else if (flag === '--connections') o.connections = Math.max(1, Math.floor(num(flag, value())));
    else if (flag === '--idle-sockets') o.idleSockets = Math.floor(num(flag, value()));
    else if (flag === '--fresh') o.fresh = true;
    else if (flag === '--markdown') o.writeMarkdown = true;
    else if (flag === '--no-write') o.noWrite = true;
    else if (flag === '--render') o.render = value();
    else if (flag === '--help' || flag === '-h') o.help = true;
    else throw new Error(`unknown argument ${a} (see --help)`);
  }
  if (o.blocks !== undefined && o.blocks < 18) throw new Error('--blocks: the bench chain needs at least 18 blocks');
  return o;
}

const HELP = `usage: npm run bench -- [options]
  --only a,b         run the cases whose name contains one of the substrings (case-insensitive)
  --quick            small chain (${DEFAULTS.quick.blocks} blocks), ${DEFAULTS.quick.durationS} s per run, Starknet bench --quick
  --blocks N         bench chain height (default ${DEFAULTS.full.blocks})
  --duration S       measured seconds per case, server and transport (default ${DEFAULTS.full.durationS})
  --warmup S         warm-up seconds before each run (default ${DEFAULTS.full.warmupS})
  --probe S          seconds of the one-connection latency run (default ${DEFAULTS.full.probeS})
  --connections C    HTTP connections / WebSocket sockets (default ${DEFAULTS.full.connections})
  --idle-sockets N   idle WebSockets for the memory figure (default ${DEFAULTS.full.idleSockets}; 0 skips)
  --fresh            re-import into tracenode (and re-measure import speed) even if cached
  --markdown         write BENCHMARKS.md even for --quick/--only runs
  --no-write         write neither bench/results/ nor BENCHMARKS.md
  --render FILE      measure nothing: rewrite BENCHMARKS.md from a results file of a full run
cases: ${CASE_NAMES.join('; ')}`;

/** Runs the command line `argv` (without node and the script). */
export async function main(argv: string[]): Promise<void> {
  const opts = parseCli(argv);
  if (opts.help) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  if (opts.render !== undefined) {
    // A results file this bench wrote; its targets are judged again with today's rules.
    const saved = JSON.parse(readFileSync(opts.render, 'utf8')) as BenchReport;
    saved.targets = evaluateTargets(saved);
    writeFileSync(join(REPO, 'BENCHMARKS.md'), renderMarkdown(saved, relative(REPO, resolve(opts.render))));
    process.stdout.write(`results: BENCHMARKS.md rendered from ${opts.render}\n`);
    return;
  }
  const report = await runBench(opts);
  const tables = renderTables(report);
  process.stdout.write(`\n${tables}\n\n`);
  if (!opts.noWrite) {
    const dir = join(BENCH_DIR, 'results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${report.date.slice(0, 19).replace(/:/g, '')}Z${report.mode === 'quick' ? '-quick' : ''}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 1)}\n`);
    process.stdout.write(`results: ${relative(REPO, file)}\n`);
    const full = report.mode === 'full' && report.settings.only.length === 0;
    if (opts.writeMarkdown ?? full) {
      writeFileSync(join(REPO, 'BENCHMARKS.md'), renderMarkdown(report, relative(REPO, file)));
      process.stdout.write('results: BENCHMARKS.md\n');
    }
  }
  const bad = report.cases.reduce(
    (n, k) => n + SERVERS.reduce((m, s) => m + badCount(k.servers[s]?.http) + badCount(k.servers[s]?.ws), 0) + k.problems.length,
    0,
  );
  process.stdout.write(`bench: done in ${Math.round(report.seconds)} s${bad ? `; ${bad} wrong answers or problems (see above)` : ''}\n`);
  if (bad) process.exitCode = 1;
}
