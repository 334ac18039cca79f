import { describe, expect, it } from 'vitest';
import { becomesHead, terminalTotalDifficulty } from './sideChains.js';

describe("geth's fork choice for imported blocks", () => {
  it('before the terminal total difficulty: the heavier chain, then the lower block, else the head stays', () => {
    expect(becomesHead({ td: 11n, number: 5n }, { td: 10n, number: 9n }, undefined)).toBe(true);
    expect(becomesHead({ td: 9n, number: 3n }, { td: 10n, number: 9n }, undefined)).toBe(false);
    expect(becomesHead({ td: 10n, number: 8n }, { td: 10n, number: 9n }, undefined)).toBe(true);
    expect(becomesHead({ td: 10n, number: 9n }, { td: 10n, number: 9n }, undefined)).toBe(false);
    expect(becomesHead({ td: 10n, number: 10n }, { td: 10n, number: 9n }, 11n)).toBe(false);
  });

  it('from the terminal total difficulty on: the block inserted last', () => {
    expect(becomesHead({ td: 0n, number: 3n }, { td: 0n, number: 9n }, 0n)).toBe(true);
    expect(becomesHead({ td: 786432n, number: 6n }, { td: 900000n, number: 9n }, 786432n)).toBe(true);
  });

  it("reads a genesis config's terminal total difficulty in each of its spellings", () => {
    expect(terminalTotalDifficulty({ terminalTotalDifficulty: 0 })).toBe(0n);
    expect(terminalTotalDifficulty({ terminalTotalDifficulty: '0xC0000' })).toBe(786432n);
    expect(terminalTotalDifficulty({ terminalTotalDifficulty: '58750000000000000000000' })).toBe(58750000000000000000000n);
    expect(terminalTotalDifficulty({})).toBeUndefined();
  });
});
