import { createHash } from 'node:crypto';
import { expectsRefusal } from './convert.js';
import { bundleCases, bundleNames, type TestCase } from './fixtures.js';

/**
 * The part of the vendored blockchain tests `npm test` runs (`npm run conformance` runs them all):
 * every case of the system contracts' deployment and emptiness rules, every side-chain and
 * fork-transition case of the legacy tests, and a fixed sample of one case in `SAMPLE_EVERY` of the
 * rest, chosen by a hash of its file and name so that it never changes between runs.
 */

/** One case in this many of the rest. */
const SAMPLE_EVERY = 24;

/** Files whose every case is in the subset. */
const WHOLE_FILES = [
  /test_system_contract_deployment\.json$/,
  /test_system_contract_errors\.json$/,
  /TransitionTests\//,
  /bcForkStressTest\//,
  /bcMultiChainTest\//,
  /bcTotalDifficultyTest\//,
];

function sampled(c: TestCase): boolean {
  if (WHOLE_FILES.some((re) => re.test(c.file))) return true;
  const digest = createHash('sha256').update(`${c.file}\n${c.name}`).digest();
  return digest.readUInt32BE(0) % SAMPLE_EVERY === 0;
}

/** The subset's cases of the bundles whose names match `pattern`. */
export function subsetCases(pattern: RegExp): TestCase[] {
  const out: TestCase[] = [];
  for (const bundle of bundleNames().filter((b) => pattern.test(b))) for (const c of bundleCases(bundle)) if (sampled(c)) out.push(c);
  return out;
}

/** A short, unique label of a case for test names: its file's last two path parts and its name. */
export function caseLabel(c: TestCase): string {
  const refused = c.test.blocks.filter((b) => expectsRefusal(b, c.test.network) !== undefined).length;
  const file = c.file.split('/').slice(-2).join('/');
  return `${file} ${c.name}${refused > 0 ? ` (${refused} to refuse)` : ''}`;
}
