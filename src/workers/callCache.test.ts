import { type BlockHeader, createBlockHeader } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { describe, expect, it } from 'vitest';
import type { CallRequest } from '../execution/callArgs.js';
import type { CallOverrides } from '../execution/callEngine.js';
import type { CallResult } from '../execution/callResult.js';
import { cachedCalls, cachedEstimates, callKey } from './callCache.js';
import { JobAbortedError } from './pool.js';

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Shanghai });
/** Block `n` of branch `tag`: two branches' blocks of one number have different hashes. */
const header = (n: number, tag = 'a'): BlockHeader =>
  createBlockHeader({ number: BigInt(n), gasLimit: 30_000_000n, baseFeePerGas: 7n, extraData: new TextEncoder().encode(tag) }, { common });

const TO = Uint8Array.from({ length: 20 }, (_, i) => i + 1);
const BALANCE_OF = Uint8Array.of(0x70, 0xa0, 0x82, 0x31);

/** A stand-in for the workers: answers with the block's number and extraData and the call's first data byte, and counts its runs; `failNext` makes the next run fail. */
function fakeRuns() {
  const runs: string[] = [];
  let fail: Error | undefined;
  const run = async (h: BlockHeader, request: CallRequest, _overrides: CallOverrides): Promise<CallResult> => {
    runs.push(`${h.number}${new TextDecoder().decode(h.extraData)}`);
    await Promise.resolve();
    const err = fail;
    fail = undefined;
    if (err) throw err;
    return { returnValue: Uint8Array.of(Number(h.number), h.extraData[0], request.data?.[0] ?? 0), gasUsed: 21_000n, peakGasUsed: 21_000n };
  };
  return { run, runs, failNext: (err: Error) => (fail = err) };
}

describe('eth_call result cache (workers/callCache.ts)', () => {
  it('the same call at the same block runs once; another block, call or override runs again', async () => {
    const { run, runs } = fakeRuns();
    const calls = cachedCalls(run, 1024 * 1024);
    const first = await calls.call(header(5), { to: TO, data: BALANCE_OF });
    expect(await calls.call(header(5), { to: TO, data: BALANCE_OF })).toBe(first);
    // A field left undefined is a field left out, as the decoder gives it.
    expect(await calls.call(header(5), { to: TO, data: BALANCE_OF, gas: undefined })).toBe(first);
    expect(runs).toEqual(['5a']);
    expect(calls.stats()).toEqual({ hits: 2, misses: 1, entries: 1 });

    await calls.call(header(6), { to: TO, data: BALANCE_OF });
    await calls.call(header(5), { to: TO, data: Uint8Array.of(0x18, 0x16, 0x0d, 0xdd) });
    await calls.call(header(5), { to: TO, data: BALANCE_OF, gas: 100_000n });
    await calls.call(header(5), { to: TO, data: BALANCE_OF }, { state: [{ address: TO, balance: 1n }] });
    await calls.call(header(5), { to: TO, data: BALANCE_OF }, { block: { number: 9n, unsupported: [] } });
    expect(runs).toEqual(['5a', '6a', '5a', '5a', '5a', '5a']);
    expect(calls.stats().entries).toBe(6);
  });

  it('the key: every field of the call, each override, the block; a call of plain fields a short key, any other its JSON', () => {
    const h = header(5);
    const base: CallRequest = { from: TO, to: TO, data: BALANCE_OF };
    const variants: CallRequest[] = [
      base,
      { ...base, from: undefined },
      { ...base, to: undefined },
      { ...base, gas: 1n },
      { ...base, gasPrice: 1n },
      { ...base, maxFeePerGas: 1n },
      { ...base, maxPriorityFeePerGas: 1n },
      { ...base, maxFeePerBlobGas: 1n },
      { ...base, value: 1n },
      { ...base, nonce: 1n },
      { ...base, data: Uint8Array.of(0x70, 0xa0, 0x82) },
      { ...base, chainId: 1n },
      { ...base, type: 1n },
      { ...base, gas: 1n, value: 16n },
      { ...base, gas: 0x11n, value: 6n },
      { ...base, accessList: [] },
      { ...base, blobVersionedHashes: [] },
      { ...base, authorizationList: [] },
    ];
    const keys = variants.map((r) => callKey(h, r, {}));
    expect(new Set(keys).size).toBe(variants.length);
    expect(keys[0]).toMatch(/^[0-9a-f]{64}#/);
    expect(keys.at(-1)).toMatch(/^[0-9a-f]{64}\|/);
    expect(callKey(h, base, { state: [{ address: TO, balance: 1n }] })).not.toBe(keys[0]);
    expect(callKey(h, base, { block: { number: 9n, unsupported: [] } })).not.toBe(keys[0]);
    expect(callKey(header(5, 'b'), base, {})).not.toBe(keys[0]);
    expect(callKey(h, { ...base, gas: undefined }, {})).toBe(keys[0]);
  });

  it('a block of the same number on another branch (a reorganisation) is another block: never the old answer', async () => {
    const { run, runs } = fakeRuns();
    const calls = cachedCalls(run, 1024 * 1024);
    const before = await calls.call(header(7, 'a'), { to: TO, data: BALANCE_OF });
    const after = await calls.call(header(7, 'b'), { to: TO, data: BALANCE_OF });
    expect([before.returnValue[1], after.returnValue[1]]).toEqual([0x61, 0x62]); // 'a', 'b'
    expect(runs).toEqual(['7a', '7b']);
  });

  it('cache: false (pending) and a size of 0 run every time and keep nothing', async () => {
    const { run, runs } = fakeRuns();
    const calls = cachedCalls(run, 1024 * 1024);
    await calls.call(header(5), { to: TO }, {}, { cache: false });
    await calls.call(header(5), { to: TO }, {}, { cache: false });
    expect(calls.stats()).toEqual({ hits: 0, misses: 0, entries: 0 });
    const off = cachedCalls(run, 0);
    await off.call(header(5), { to: TO });
    await off.call(header(5), { to: TO });
    expect(runs).toHaveLength(4);
    expect(off.stats().entries).toBe(0);
  });

  it('an error is not kept: the next identical call runs again', async () => {
    const { run, runs, failNext } = fakeRuns();
    const calls = cachedCalls(run, 1024 * 1024);
    failNext(new Error('execution aborted (timeout = 5s)'));
    await expect(calls.call(header(5), { to: TO })).rejects.toThrow('execution aborted');
    await expect(calls.call(header(5), { to: TO })).resolves.toMatchObject({ gasUsed: 21_000n });
    expect(runs).toEqual(['5a', '5a']);
  });

  it('identical calls under way share one run; a sharer whose starter went away runs its own', async () => {
    const { run, runs, failNext } = fakeRuns();
    const calls = cachedCalls(run, 1024 * 1024);
    const answers = await Promise.all(Array.from({ length: 10 }, () => calls.call(header(5), { to: TO })));
    expect(runs).toEqual(['5a']);
    expect(new Set(answers).size).toBe(1);

    failNext(new JobAbortedError('the client went away'));
    const gone = new AbortController();
    gone.abort();
    const starter = calls.call(header(8), { to: TO }, {}, { signal: gone.signal });
    const sharer = calls.call(header(8), { to: TO });
    await expect(starter).rejects.toBeInstanceOf(JobAbortedError);
    await expect(sharer).resolves.toMatchObject({ gasUsed: 21_000n });
    expect(runs).toEqual(['5a', '8a', '8a']);
  });

  it('the answers kept stay within the size given', async () => {
    const { run } = fakeRuns();
    const maxBytes = 8 * 1024;
    const calls = cachedCalls(run, maxBytes);
    for (let n = 0; n < 1000; n++) await calls.call(header(n), { to: TO });
    // Each entry is its key (~140 characters), 3 bytes of answer and the overhead: ~540 bytes estimated.
    expect(calls.stats().entries).toBeGreaterThan(5);
    expect(calls.stats().entries).toBeLessThanOrEqual(Math.ceil(maxBytes / 500));
  });
});

describe('eth_estimateGas answer cache (workers/callCache.ts)', () => {
  /** A stand-in for the estimate search: the block's number plus the call's first data byte, counting its runs. */
  function fakeEstimates() {
    const runs: string[] = [];
    let fail: Error | undefined;
    const run = async (h: BlockHeader, request: CallRequest): Promise<bigint> => {
      runs.push(`${h.number}${new TextDecoder().decode(h.extraData)}`);
      await Promise.resolve();
      const err = fail;
      fail = undefined;
      if (err) throw err;
      return 21_000n + h.number + BigInt(request.data?.[0] ?? 0);
    };
    return { run, runs, failNext: (err: Error) => (fail = err) };
  }

  it('the same estimate at the same block runs once; another block (a reorganisation’s too), call, override or pending runs again', async () => {
    const { run, runs } = fakeEstimates();
    const estimates = cachedEstimates(run, 1024 * 1024);
    expect(await estimates.run(header(5), { to: TO, data: BALANCE_OF })).toBe(21_117n);
    expect(await estimates.run(header(5), { to: TO, data: BALANCE_OF })).toBe(21_117n);
    expect(estimates.stats()).toEqual({ hits: 1, misses: 1, entries: 1 });
    expect(await estimates.run(header(5, 'b'), { to: TO, data: BALANCE_OF })).toBe(21_117n);
    await estimates.run(header(5), { to: TO, data: BALANCE_OF, value: 1n });
    await estimates.run(header(5), { to: TO, data: BALANCE_OF }, { state: [{ address: TO, balance: 1n }] });
    await estimates.run(header(5), { to: TO, data: BALANCE_OF }, {}, { cache: false });
    expect(runs).toEqual(['5a', '5b', '5a', '5a', '5a']);
    expect(estimates.stats()).toEqual({ hits: 1, misses: 4, entries: 4 });
  });

  it('an error (a revert at the cap, gas beyond the allowance) is not kept', async () => {
    const { run, runs, failNext } = fakeEstimates();
    const estimates = cachedEstimates(run, 1024 * 1024);
    failNext(new Error('gas required exceeds allowance (300000000)'));
    await expect(estimates.run(header(9), { to: TO })).rejects.toThrow('gas required exceeds allowance');
    expect(await estimates.run(header(9), { to: TO })).toBe(21_009n);
    expect(runs).toEqual(['9a', '9a']);
  });

  it('a size of 0 keeps nothing', async () => {
    const { run, runs } = fakeEstimates();
    const off = cachedEstimates(run, 0);
    await off.run(header(5), { to: TO });
    await off.run(header(5), { to: TO });
    expect(runs).toHaveLength(2);
    expect(off.stats().entries).toBe(0);
  });
});
