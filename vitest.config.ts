import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: run files in parallel on both, but not more (imports are CPU-bound).
    maxWorkers: 2,
    // The JSON report feeds the one-line summary that .ci/run prints.
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-results.json' },
  },
});
