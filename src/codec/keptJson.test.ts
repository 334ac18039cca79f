import { describe, expect, it } from 'vitest';
import { keepJson, resultJson } from './keptJson.js';

describe('JSON text kept with shared answers (codec/keptJson.ts)', () => {
  it('gives JSON.stringify’s text for every kind of result, kept or not', () => {
    const kept = keepJson({ a: '0x1', b: [1, 'x', null], c: { d: true } });
    const other = { e: '0x2' };
    const values: unknown[] = [
      null,
      0,
      '0xabc',
      'quote " and \\ and \u2028',
      true,
      [],
      [1, 2],
      other,
      kept,
      [kept],
      [kept, other, kept],
      [kept, 1, 'x', null, undefined, () => 1, [kept]],
      // biome-ignore lint/suspicious/noSparseArray: a hole must read as null, as JSON.stringify writes it
      [kept, , other],
      { nested: kept },
    ];
    for (const value of values) expect(resultJson(value)).toBe(JSON.stringify(value));
  });

  it('a kept object is serialized once, whichever answer carries it', () => {
    let serialized = 0;
    const log = keepJson({
      toJSON() {
        serialized++;
        return { logIndex: '0x0' };
      },
    });
    expect(resultJson(log)).toBe('{"logIndex":"0x0"}');
    expect(resultJson([log, log])).toBe('[{"logIndex":"0x0"},{"logIndex":"0x0"}]');
    expect(resultJson([log])).toBe('[{"logIndex":"0x0"}]');
    expect(serialized).toBe(1);
  });

  it('an object not kept is serialized each time', () => {
    let serialized = 0;
    const fresh = {
      toJSON() {
        serialized++;
        return 1;
      },
    };
    resultJson(fresh);
    resultJson([keepJson({}), fresh]);
    expect(serialized).toBe(2);
  });
});
