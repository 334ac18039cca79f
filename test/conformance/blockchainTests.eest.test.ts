import { describe, expect, it } from 'vitest';
import { runCase } from './blockchainTests/run.js';
import { caseLabel, subsetCases } from './blockchainTests/subset.js';

/**
 * The Ethereum blockchain tests of execution-spec-tests (fixtures/blockchain-tests/, the subset of
 * blockchainTests/subset.ts), each through init, import and a served node: see blockchainTests/run.ts.
 */
describe('blockchain tests: execution-spec-tests', () => {
  const cases = subsetCases(/^eest-/);
  it('the subset is not empty', () => expect(cases.length).toBeGreaterThan(50));
  for (const c of cases) {
    it(caseLabel(c), async (ctx) => {
      const result = await runCase(c);
      if (result.status === 'skip') ctx.skip(result.reason);
      expect(result.reason ?? 'pass').toBe('pass');
    });
  }
});
