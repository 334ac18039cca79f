/**
 * `npm run conformance`: every vendored Ethereum blockchain test (fixtures/blockchain-tests/)
 * through init, import and a served node (test/conformance/blockchainTests/run.ts), with pass
 * counts by fork and by bundle, and every failure with its reason. `npm test` runs a fixed subset.
 *
 *   npm run conformance [-- --bundle <regexp>] [-- --no-serve]
 *
 * Exits 1 when a test fails.
 */
import { parseArgs } from 'node:util';
import { finalFork } from '../test/conformance/blockchainTests/convert.js';
import { bundleCases, bundleNames } from '../test/conformance/blockchainTests/fixtures.js';
import { type CaseStatus, runCase } from '../test/conformance/blockchainTests/run.js';

const { values } = parseArgs({ options: { bundle: { type: 'string' }, 'no-serve': { type: 'boolean' } } });
const pattern = new RegExp(values.bundle ?? '.');
const serve = values['no-serve'] !== true;

type Counts = Record<CaseStatus, number>;
const zero = (): Counts => ({ pass: 0, fail: 0, skip: 0 });
const byFork = new Map<string, Counts>();
const byBundle = new Map<string, Counts>();
const failures: string[] = [];
const skips = new Map<string, number>();
const started = performance.now();
let done = 0;

for (const bundle of bundleNames().filter((b) => pattern.test(b))) {
  const counts = zero();
  byBundle.set(bundle, counts);
  for (const c of bundleCases(bundle)) {
    const result = await runCase(c, { serve }).catch((err: unknown) => ({ status: 'fail' as const, reason: `runner error: ${(err as Error).stack ?? err}` }));
    const fork = finalFork(c.test.network);
    if (!byFork.has(fork)) byFork.set(fork, zero());
    byFork.get(fork)![result.status]++;
    counts[result.status]++;
    if (result.status === 'fail') failures.push(`${c.file} :: ${c.name}\n    ${result.reason}`);
    if (result.status === 'skip') skips.set(result.reason ?? '', (skips.get(result.reason ?? '') ?? 0) + 1);
    if (++done % 250 === 0) process.stderr.write(`conformance: ${done} tests, ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  }
  process.stderr.write(`conformance: ${bundle}: ${counts.pass} passed, ${counts.fail} failed, ${counts.skip} skipped\n`);
}

const FORK_ORDER = [
  'Frontier',
  'Homestead',
  'EIP150',
  'EIP158',
  'Byzantium',
  'Constantinople',
  'ConstantinopleFix',
  'Istanbul',
  'Berlin',
  'London',
  'Paris',
  'Shanghai',
  'Cancun',
  'Prague',
  'Osaka',
  'BPO1',
  'BPO2',
  'BPO3',
  'BPO4',
];
const row = (name: string, c: Counts) => `| ${name} | ${c.pass} | ${c.fail} | ${c.skip} |`;
const total = zero();
for (const c of byBundle.values()) for (const k of ['pass', 'fail', 'skip'] as const) total[k] += c[k];
console.log('\n| fork (the one a test ends on) | passed | failed | skipped |\n|---|---|---|---|');
for (const fork of [...byFork.keys()].sort((a, b) => FORK_ORDER.indexOf(a) - FORK_ORDER.indexOf(b))) console.log(row(fork, byFork.get(fork)!));
console.log(row('**all**', total));
console.log('\n| bundle | passed | failed | skipped |\n|---|---|---|---|');
for (const [bundle, c] of byBundle) console.log(row(bundle, c));
for (const [reason, n] of skips) console.log(`\nskipped ${n}: ${reason}`);
if (failures.length > 0) console.log(`\nfailures:\n${failures.join('\n')}`);
console.log(
  `\n${total.pass} passed, ${total.fail} failed, ${total.skip} skipped in ${((performance.now() - started) / 1000).toFixed(0)} s${serve ? '' : ' (not served)'}`,
);
process.exit(total.fail > 0 ? 1 : 0);
