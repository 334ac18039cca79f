import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../config/settings.js';
import { CallError, type CallResult, ExecutionFailedError } from './callResult.js';
import { INTRINSIC_GAS_TOO_LOW, searchGasLimit } from './estimate.js';

/** The default `execution.estimateErrorRatio`, geth's 1.5 %. */
const RATIO = SETTINGS.execution.estimateErrorRatio.default;

const OUT_OF_GAS: CallResult = {
  returnValue: new Uint8Array(),
  gasUsed: 0n,
  peakGasUsed: 0n,
  failure: { kind: 'halt', message: 'out of gas', outOfGas: true },
};

/**
 * A call that succeeds iff it is given at least `needs` gas, reporting `used` after refunds and
 * `peak` before them; every gas limit it is tried with is recorded in `tried`.
 */
function fakeCall(needs: bigint, used = needs, peak = used) {
  const tried: bigint[] = [];
  const attempt = async (gas: bigint): Promise<CallResult> => {
    tried.push(gas);
    return gas >= needs ? { returnValue: new Uint8Array(), gasUsed: used, peakGasUsed: peak } : OUT_OF_GAS;
  };
  return { attempt, tried };
}

describe('searchGasLimit (geth eth/gasestimator)', () => {
  it('a call that needs 53,123 gas: the optimistic guess, then bisection until within 1.5%', async () => {
    const { attempt, tried } = fakeCall(53_123n);
    // hi 30,000,000 succeeds using 53,123, so lo = 53,122; the optimistic guess is
    // (53,123 + 2,300) * 64 / 63 = 56,302 (rounded down) and succeeds: hi = 56,302.
    // mid 53,122 + 3,180/2 = 54,712 succeeds; mid 53,122 + 1,590/2 = 53,917 succeeds;
    // then (53,917 - 53,122) / 53,917 = 1.47% < 1.5% ends the search.
    expect(await searchGasLimit(attempt, 30_000_000n, RATIO)).toBe(53_917n);
    expect(tried).toEqual([30_000_000n, 56_302n, 54_712n, 53_917n]);
  });

  it('refunds hide what the call needs: the optimistic guess fails and the search grows from below', async () => {
    // Uses 40,000 after refunds, 45,000 before, needs 53,123. The guess (45,000 + 2,300) * 64 / 63
    // = 48,050 fails: lo = 48,050. Each mid is capped at 2 * lo (96,100), then halves:
    // 72,075 ok, 60,062 ok, 54,056 ok, 51,053 fails, 52,554 fails, 53,305 ok; 751 / 53,305 < 1.5%.
    const { attempt, tried } = fakeCall(53_123n, 40_000n, 45_000n);
    expect(await searchGasLimit(attempt, 30_000_000n, RATIO)).toBe(53_305n);
    expect(tried).toEqual([30_000_000n, 48_050n, 96_100n, 72_075n, 60_062n, 54_056n, 51_053n, 52_554n, 53_305n]);
  });

  it('never answers below what the call needs, and stays within the error ratio of it', async () => {
    for (let needs = 21_000n; needs < 20_000_000n; needs = (needs * 7n) / 5n + 13n) {
      for (const [used, peak] of [
        [needs, needs],
        [(needs * 4n) / 5n, (needs * 9n) / 10n],
      ]) {
        const result = await searchGasLimit(fakeCall(needs, used, peak).attempt, 30_000_000n, RATIO);
        expect(result).toBeGreaterThanOrEqual(needs);
        expect(Number(result - needs) / Number(result)).toBeLessThan(RATIO);
      }
    }
  });

  it('a limit below the intrinsic gas counts as too little gas', async () => {
    const tried: bigint[] = [];
    const attempt = async (gas: bigint): Promise<CallResult> => {
      tried.push(gas);
      if (gas < 60_000n) return INTRINSIC_GAS_TOO_LOW;
      return { returnValue: new Uint8Array(), gasUsed: 30_000n, peakGasUsed: 30_000n };
    };
    // lo = 29,999; guess (30,000 + 2,300) * 64 / 63 = 32,812 too low: lo = 32,812; then
    // 65,624 ok, 49,218 low, 57,421 low, 61,522 ok, 59,471 low, 60,496 ok: 1,025 / 60,496 = 1.69%;
    // 59,983 low: 513 / 60,496 < 1.5%.
    expect(await searchGasLimit(attempt, 1_000_000n, RATIO)).toBe(60_496n);
    expect(tried).toEqual([1_000_000n, 32_812n, 65_624n, 49_218n, 57_421n, 61_522n, 59_471n, 60_496n, 59_983n]);
  });

  it('a plain transfer that succeeds with the minimum is answered with it, in one attempt', async () => {
    const { attempt, tried } = fakeCall(21_000n);
    expect(await searchGasLimit(attempt, 30_000_000n, RATIO, 21_000n)).toBe(21_000n);
    expect(tried).toEqual([21_000n]);
  });

  it('a transfer attempt that throws is a failure, and the search goes on', async () => {
    const tried: bigint[] = [];
    const attempt = async (gas: bigint): Promise<CallResult> => {
      tried.push(gas);
      if (gas === 21_000n) throw new CallError('failed with 21000 gas: insufficient funds for transfer');
      return { returnValue: new Uint8Array(), gasUsed: 21_000n, peakGasUsed: 21_000n };
    };
    // lo = 20,999; guess (21,000 + 2,300) * 64 / 63 = 23,669 ok; 22,334 ok;
    // then (22,334 - 20,999) / 22,334 = 5.98%: 21,666 ok, 21,332 ok: 333 / 21,332 = 1.56%;
    // 21,165 ok: 166 / 21,165 < 1.5%.
    expect(await searchGasLimit(attempt, 30_000_000n, RATIO, 21_000n)).toBe(21_165n);
    expect(tried).toEqual([21_000n, 30_000_000n, 23_669n, 22_334n, 21_666n, 21_332n, 21_165n]);
  });

  it('error: a revert at the highest limit is ExecutionFailedError with the run', async () => {
    const reverted: CallResult = { returnValue: Uint8Array.of(1), gasUsed: 25_000n, peakGasUsed: 25_000n, failure: { kind: 'revert' } };
    const err = await searchGasLimit(async () => reverted, 30_000_000n, RATIO).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExecutionFailedError);
    expect((err as ExecutionFailedError).result).toBe(reverted);
    expect((err as Error).message).toBe('execution reverted');
  });

  it('error: out of gas (or below the intrinsic gas) at the highest limit is geth\'s "gas required exceeds allowance"', async () => {
    await expect(searchGasLimit(async () => OUT_OF_GAS, 100_000n, RATIO)).rejects.toThrow(new CallError('gas required exceeds allowance (100000)'));
    await expect(searchGasLimit(async () => INTRINSIC_GAS_TOO_LOW, 100_000n, RATIO)).rejects.toThrow(new CallError('gas required exceeds allowance (100000)'));
  });

  describe('a call whose path cannot depend on its limit (sameRunAbove): its threshold answers the search', () => {
    const always = () => true;

    /** The search on the call `fakeCall(needs, used, peak)` both ways: answers (which must agree) and the limits each tried. */
    async function bothWays(needs: bigint, used?: bigint, peak?: bigint) {
      const plain = fakeCall(needs, used, peak);
      const fast = fakeCall(needs, used, peak);
      const answer = await searchGasLimit(plain.attempt, 30_000_000n, RATIO);
      expect(await searchGasLimit(fast.attempt, 30_000_000n, RATIO, undefined, always)).toBe(answer);
      return { answer, plain: plain.tried, fast: fast.tried };
    }

    it('the same answer as the EVM-driven search, from two runs: the cap and the peak', async () => {
      const { answer, plain, fast } = await bothWays(53_123n);
      // As worked out by hand in the first test of this file.
      expect(answer).toBe(53_917n);
      expect(plain).toEqual([30_000_000n, 56_302n, 54_712n, 53_917n]);
      expect(fast).toEqual([30_000_000n, 53_123n]);
    });

    it('with refunds (the peak above the gas used), the same answer too', async () => {
      // Needs its peak, 53,123; 40,000 after refunds: geth's search grows from below in many runs.
      const { plain, fast } = await bothWays(53_123n, 40_000n, 53_123n);
      expect(plain.length).toBeGreaterThan(5);
      expect(fast).toEqual([30_000_000n, 53_123n]);
    });

    it('a run at the peak that fails (an SSTORE with 2,300 gas or less left) leaves the search to the EVM: the same answer, one run more', async () => {
      const { plain, fast } = await bothWays(53_200n, 53_123n, 53_123n);
      expect(fast).toEqual([30_000_000n, 53_123n, ...plain.slice(1)]);
    });

    it('not asked when the run at the cap fails, nor when it says no; asked once, after the run at the cap', async () => {
      const asked: CallResult[] = [];
      const no = (top: CallResult) => {
        asked.push(top);
        return false;
      };
      const plain = fakeCall(53_123n);
      const said = fakeCall(53_123n);
      expect(await searchGasLimit(said.attempt, 30_000_000n, RATIO, undefined, no)).toBe(await searchGasLimit(plain.attempt, 30_000_000n, RATIO));
      expect(said.tried).toEqual(plain.tried);
      expect(asked.map((r) => r.peakGasUsed)).toEqual([53_123n]);
      await expect(searchGasLimit(async () => OUT_OF_GAS, 100_000n, RATIO, undefined, no)).rejects.toThrow(CallError);
      expect(asked).toHaveLength(1);
    });

    it("every threshold from 21,000 to 20,000,000: the answers equal the plain search's, from two runs", async () => {
      for (let needs = 21_000n; needs < 20_000_000n; needs = (needs * 7n) / 5n + 13n) {
        for (const used of [needs, (needs * 4n) / 5n]) expect((await bothWays(needs, used, needs)).fast).toHaveLength(2);
      }
    });
  });
});
