/**
 * `npm run bench`: tracenode side by side with anvil and the transport floor, in one run.
 *
 *   npm run bench                                  # default sizes (see DEFAULTS), writes results + BENCHMARKS.md
 *   npm run bench -- --quick                       # small chain, a few seconds per case
 *   npm run bench -- --only eth_call,trace_filter  # cases whose name contains one of the substrings
 *   npm run bench -- --blocks 2000 --duration 10 --connections 32
 *
 * What it does (issue 8):
 *  1. Data (chains.ts): the `bench` chain generated on anvil (scripts/anvilChain.ts), cached under
 *     bench/.cache/<key> (key: the generator's inputs — its source, the Solidity sources, block
 *     count, anvil and solc versions — and tracenode's datadir schema), then imported into
 *     tracenode (blocks/s, Mgas/s) next to raw @ethereumjs/vm executing the same blocks in memory
 *     (rawExecution.ts). Both import figures are measured when the cache is built.
 *  2. Servers on 127.0.0.1 (processes.ts): tracenode (`serve`, the bench chain as the default
 *     network, plus the demo chain and the Starknet bench chain as networks chosen by Host name
 *     when those cases run); anvil serving the same chain — the anvil instance that mined it
 *     (`keepRunning`); on a cached run the chain is mined again (the generator is deterministic)
 *     and anvil's head hash must equal the cached chain's; and the floors (floor.ts).
 *  3. Every case (cases.ts) runs against each server over HTTP keep-alive (autocannon) and
 *     WebSocket (wsLoad.ts, one request in flight per socket), with the same concurrency, for a
 *     fixed duration after a warm-up; then once more with one connection over HTTP for the
 *     unloaded latency (load.ts). Every answer is checked (verify.ts): against tracenode's answer
 *     fetched before the run, which is first cross-checked against anvil's (a fast wrong answer
 *     is an error, not a result).
 *  4. Memory: tracenode's RSS at rest, with 1,000 idle WebSocket connections, and the peak under load.
 *  5. Output: tables on the terminal (ratios first), bench/results/<date>.json, BENCHMARKS.md
 *     (report.ts, with the issues' targets judged in targets.ts).
 *
 * runBench.ts runs these steps and stops every server it started at the end, also on failure or
 * Ctrl-C; cli.ts reads the arguments and writes the files. This file only starts the command line.
 */
import { main } from './cli.js';

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
