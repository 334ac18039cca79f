import { createBlock, createBlockHeader } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { KECCAK256_NULL } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { emptyBodyRootDeviation, headerChecksFor, InvalidBlockError, namesNoParent, validateHeader } from './validate.js';

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
    // The OP-stack chains known by id (OP Mainnet, Base, Unichain and their Sepolias).
    expect([10n, 8453n, 130n, 11155420n, 84532n, 1301n].map((id) => headerChecksFor('auto', id))).toEqual(Array(6).fill('strict'));
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

describe("development nodes' empty blocks", () => {
  const block = (fields: Record<string, unknown>, withdrawals: unknown[] = []) =>
    createBlock({ header: { number: 11n, timestamp: 1001n, gasLimit: 30_000_000n, baseFeePerGas: 1_000_000_000n, ...fields }, withdrawals } as never, {
      common,
      skipConsensusFormatValidation: true,
    });
  const hardhatRoot = { transactionsTrie: KECCAK256_NULL };

  it('an empty body whose transactionsRoot is keccak256(""): reported under lenient checks, refused under strict ones', () => {
    const detail =
      "transactionsRoot of an empty body is 0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470 (keccak256 of nothing), not the empty trie's root 0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";
    expect(emptyBodyRootDeviation(block(hardhatRoot), 'lenient')).toEqual({ rule: 'transactionsRoot', detail });
    expect(() => emptyBodyRootDeviation(block(hardhatRoot), 'strict')).toThrow(new InvalidBlockError(detail));
    // The empty trie's root, as every other client gives it: nothing to report.
    expect(emptyBodyRootDeviation(block({}), 'strict')).toBeUndefined();
    // A body that is not empty is left to the usual validation, which compares its roots.
    const withdrawal = { index: 0n, validatorIndex: 0n, address: new Uint8Array(20), amount: 1n };
    expect(emptyBodyRootDeviation(block(hardhatRoot, [withdrawal]), 'lenient')).toBeUndefined();
  });

  it('a block above the genesis with a zero parentHash names no parent', () => {
    expect(namesNoParent(child({}))).toBe(true);
    expect(namesNoParent(child({ number: 0n }))).toBe(false);
    expect(namesNoParent(createBlockHeader({ number: 11n, parentHash: parent.hash(), gasLimit: 30_000_000n, baseFeePerGas: 1n }, { common }))).toBe(false);
  });
});
