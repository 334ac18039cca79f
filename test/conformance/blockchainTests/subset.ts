import { createHash } from 'node:crypto';
import { expectsRefusal } from './convert.js';
import { bundleCases, bundleNames, type TestCase } from './fixtures.js';

/**
 * The part of the vendored blockchain tests `npm test` runs (`npm run conformance` runs them all):
 * every case of the system contracts' deployment and error rules and of the fork transitions, one
 * side-chain case in four (every one that reads BLOCKHASH across branches), and one case in
 * `SAMPLE_EVERY` of the rest, chosen by a hash of its file and name so that it never changes
 * between runs.
 */

/** One case in this many of the rest. */
const SAMPLE_EVERY = 40;

/** Files whose every case is in the subset: the system contracts' rules and the fork transitions. */
const WHOLE_FILES = [/test_system_contract_deployment\.json$/, /test_system_contract_errors\.json$/, /TransitionTests\//];

/** Side chains and reorganisations (ethereum/tests): one case in this many, and every BLOCKHASH one. */
const SIDE_CHAINS = /bcForkStressTest\/|bcMultiChainTest\/|bcTotalDifficultyTest\//;
const SIDE_CHAIN_EVERY = 4;

function sampled(c: TestCase): boolean {
  if (WHOLE_FILES.some((re) => re.test(c.file))) return true;
  const digest = createHash('sha256').update(`${c.file}\n${c.name}`).digest();
  if (SIDE_CHAINS.test(c.file)) return c.name.includes('BlockHash') || digest.readUInt32BE(0) % SIDE_CHAIN_EVERY === 0;
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
