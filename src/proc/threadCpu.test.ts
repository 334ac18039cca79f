import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ownThreadId, threadCpuSeconds } from './threadCpu.js';

describe.skipIf(!existsSync('/proc/thread-self'))('threadCpu (Linux /proc)', () => {
  it('ownThreadId is one of this process’s threads; its CPU reads the same through either path, and grows with work done', () => {
    const tid = ownThreadId();
    expect(tid).toBeGreaterThan(0);
    expect(readdirSync('/proc/self/task')).toContain(String(tid));
    const before = threadCpuSeconds(tid)!;
    expect(threadCpuSeconds()).toBeGreaterThanOrEqual(before);
    // Work until this thread's own clock has moved 50 ms (however long that takes on a busy machine).
    let now = before;
    while (now < before + 0.05) {
      for (let i = 0; i < 100_000; i++);
      now = threadCpuSeconds()!;
    }
    expect(threadCpuSeconds(tid)).toBeGreaterThanOrEqual(before + 0.05);
  });

  it('a thread that is not this process’s reads nothing', () => {
    expect(threadCpuSeconds(0)).toBeUndefined();
    expect(threadCpuSeconds(2 ** 31 - 1)).toBeUndefined();
  });
});
