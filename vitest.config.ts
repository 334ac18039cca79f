import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The three tiers of the suite (README, Development). `npm test` runs them all; each has its own
 * script for a quicker loop (`npm run test:unit`, `test:e2e`, `test:integration`).
 * - unit: the tests next to the code under src/ (units, and method handlers over fixture chains);
 *   no program but the compiler.
 * - integration: beside real programs (anvil, cast, Hardhat, Redis, HAProxy, Chromium), the
 *   followers (of anvil, Hardhat and recorded real networks) and the conformance runs.
 * - e2e: the rest of test/: the real server over both transports, import, tracing, Starknet, the
 *   EVM workers and the repository's own rules.
 */
const INTEGRATION = [
  'test/anvil/**/*.test.ts',
  'test/browser/**/*.test.ts',
  'test/clients/**/*.test.ts',
  'test/conformance/**/*.test.ts',
  'test/follow/**/*.test.ts',
  'test/scale/**/*.test.ts',
  'test/anvilChain.test.ts',
  'test/bench.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: run files in parallel on both, but not more (imports are CPU-bound).
    maxWorkers: 2,
    // The JSON report feeds the one-line summary that .ci/run prints; the last names a file whose
    // worker process died (vitest's own message names none).
    reporters: ['default', 'json', './test/helpers/unfinishedFiles.ts'],
    outputFile: { json: '.vitest-results.json' },
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'] } },
      { extends: true, test: { name: 'integration', include: INTEGRATION } },
      { extends: true, test: { name: 'e2e', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...INTEGRATION] } },
    ],
  },
});
