import type { Block } from '@ethereumjs/block';
import { describe, expect, it } from 'vitest';
import { simulatedWork } from '../../test/helpers/until.js';
import type { ReplayedTx } from '../tracing/adHoc.js';
import { cachedReplayDiffs } from './replayDiffCache.js';

const block = (b: number) => ({ hash: () => new Uint8Array(32).fill(b) }) as unknown as Block;
const replayed = (n: number): ReplayedTx[] =>
  Array.from({ length: n }, () => ({ tree: { root: { input: new Uint8Array(), output: new Uint8Array(), children: [] } }, diff: [] }) as unknown as ReplayedTx);

describe('cachedReplayDiffs', () => {
  it('one replay per block: a second ask, a concurrent ask and an ask for one transaction of a replayed block cost none; failures are not kept', async () => {
    const runs: Array<[number, number | undefined]> = [];
    let fail = false;
    const replay = async (b: Block, only: number | undefined) => {
      runs.push([b.hash()[0], only]);
      await simulatedWork(10);
      if (fail) throw new Error('replay failed');
      return replayed(3);
    };
    const cached = cachedReplayDiffs(replay, 1024 * 1024);
    const [a, b] = await Promise.all([cached(block(1), undefined), cached(block(1), undefined)]);
    expect(a).toBe(b);
    expect(await cached(block(1), undefined)).toBe(a);
    expect(await cached(block(1), 2)).toBe(a); // the whole block's replay holds transaction 2's diff
    expect(runs).toEqual([[1, undefined]]);
    fail = true;
    await expect(cached(block(2), 0)).rejects.toThrow('replay failed');
    fail = false;
    expect(await cached(block(2), 0)).toHaveLength(3);
    expect(runs).toEqual([
      [1, undefined],
      [2, 0],
      [2, 0],
    ]);
  });
});
