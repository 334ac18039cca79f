import { describe, expect, it } from 'vitest';
import { createProgress, GAS_UNIT } from './progress.js';

describe('progress lines', () => {
  it('say blocks/s, Mgas/s and the ETA, and what the caller adds (a follower from block N: upstream calls per block)', () => {
    const lines: string[] = [];
    const out = { write: (s: string) => lines.push(s) } as unknown as NodeJS.WritableStream;
    let calls = 0;
    const progress = createProgress(4, out, 0, GAS_UNIT, 'import', () => `${calls.toFixed(1)} upstream calls/block`);
    calls = 2;
    progress.block(1n, 1_000_000n);
    progress.done({ imported: 1, skipped: 0 });
    expect(lines[0]).toMatch(/^import: block 1 {2}1\/4 {2}[\d.]+ blocks\/s {2}[\d.]+ Mgas\/s {2}ETA \S+ {2}2\.0 upstream calls\/block\n$/);
    expect(lines[1]).toMatch(
      /^import: done, 1 blocks imported, 0 already present, in [\d.]+ s \([\d.]+ blocks\/s, [\d.]+ Mgas\/s, 2\.0 upstream calls\/block\)\n$/,
    );
  });
});
