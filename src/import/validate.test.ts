import { createBlockHeader } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { describe, expect, it } from 'vitest';
import { headerChecksFor, InvalidBlockError, validateHeader } from './validate.js';

// A post-merge, pre-Cancun chain (no blob fields): the parent-dependent rules left are the
// timestamp, the gas limit's step and the EIP-1559 base fee.
const common = new Common({ chain: Mainnet, hardfork: Hardfork.Shanghai });
const parent = createBlockHeader(
  { number: 10n, timestamp: 1000n, gasLimit: 30_000_000n, gasUsed: 15_000_000n, baseFeePerGas: 1_000_000_000n },
  { common, skipConsensusFormatValidation: true },
);
// Gas used at the target: the next base fee equals the parent's (EIP-1559).
const child = (fields: Record<string, bigint>) =>
  createBlockHeader(
    { number: 11n, timestamp: 1001n, gasLimit: 30_000_000n, baseFeePerGas: 1_000_000_000n, ...fields },
    { common, skipConsensusFormatValidation: true },
  );

describe('header checks', () => {
  it('auto is strict on the public chain ids and lenient elsewhere', () => {
    expect([1n, 11155111n, 17000n, 560048n].map((id) => headerChecksFor('auto', id))).toEqual(['strict', 'strict', 'strict', 'strict']);
    expect([31337n, 1337n, 271828n].map((id) => headerChecksFor('auto', id))).toEqual(['lenient', 'lenient', 'lenient']);
    expect(headerChecksFor('strict', 31337n)).toBe('strict');
    expect(headerChecksFor('lenient', 1n)).toBe('lenient');
  });

  it('a header that keeps every rule has no deviation in either mode', () => {
    expect(validateHeader(child({}), parent, 'strict')).toEqual([]);
    expect(validateHeader(child({}), parent, 'lenient')).toEqual([]);
  });

  it('strict: a repeated timestamp is refused with what differs', () => {
    expect(() => validateHeader(child({ timestamp: 1000n }), parent, 'strict')).toThrow(new InvalidBlockError("timestamp 1000 not after parent's 1000"));
  });

  it('lenient: a repeated timestamp and a stale base fee are reported, not refused', () => {
    // anvil after evm_revert: the base fee of the branch it left (7478637 where the parent gives 1 gwei).
    expect(validateHeader(child({ timestamp: 1000n, baseFeePerGas: 7_478_637n }), parent, 'lenient')).toEqual([
      { rule: 'timestamp', detail: "timestamp 1000 not after parent's 1000" },
      { rule: 'baseFee', detail: 'baseFeePerGas 7478637 != expected 1000000000' },
    ]);
    // A decreasing timestamp, and a gas limit set at will (anvil_setBlockGasLimit).
    expect(validateHeader(child({ timestamp: 999n, gasLimit: 60_000_000n }), parent, 'lenient').map((d) => d.rule)).toEqual(['timestamp', 'gasLimit']);
  });

  it('lenient: a number that does not follow the parent is still refused', () => {
    const skipped = createBlockHeader({ number: 12n, timestamp: 1001n, gasLimit: 30_000_000n, baseFeePerGas: 1_000_000_000n }, { common });
    expect(() => validateHeader(skipped, parent, 'lenient')).toThrow(new InvalidBlockError('number 12 does not follow parent 10'));
  });
});
