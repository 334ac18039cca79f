import { describe, expect, it } from 'vitest';
import { until } from '../../test/helpers/until.js';
import { type ChunkSink, chunkedStdout } from './chunkedStdout.js';

function sink(): ChunkSink & { chunks: string[]; flushes: number; syncFlushes: number } {
  const s = {
    chunks: [] as string[],
    flushes: 0,
    syncFlushes: 0,
    write(chunk: string) {
      s.chunks.push(chunk);
    },
    flush() {
      s.flushes++;
    },
    flushSync() {
      s.syncFlushes++;
    },
  };
  return s;
}

describe('chunkedStdout', () => {
  it('hands lines over in one write per chunk of at least the buffer size', () => {
    const out = sink();
    const dest = chunkedStdout(out, 100, 60_000);
    const line = `${'x'.repeat(39)}\n`; // 40 characters
    dest.write(line);
    dest.write(line);
    expect(out.chunks).toEqual([]);
    dest.write(line);
    expect(out.chunks).toEqual([line.repeat(3)]);
    dest.write(line);
    expect(out.chunks).toHaveLength(1);
  });

  it('flush and flushSync hand over what is held and flush the sink', () => {
    const out = sink();
    const dest = chunkedStdout(out, 4096, 60_000);
    dest.write('a\n');
    dest.flush();
    expect(out.chunks).toEqual(['a\n']);
    expect(out.flushes).toBe(1);
    dest.write('b\n');
    dest.write('c\n');
    dest.flushSync();
    expect(out.chunks).toEqual(['a\n', 'b\nc\n']);
    expect(out.syncFlushes).toBe(1);
  });

  it('a quiet node hands its lines over within flushMs', async () => {
    const out = sink();
    const dest = chunkedStdout(out, 4096, 20);
    dest.write('quiet\n');
    await until(
      'the line handed over',
      () => out.chunks.length,
      (n) => n > 0,
    );
    expect(out.chunks).toEqual(['quiet\n']);
    expect(out.flushes).toBeGreaterThanOrEqual(1);
  });
});
