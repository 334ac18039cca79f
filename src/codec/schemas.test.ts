import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { BlockNumberOrHash, BlockNumberOrTag } from './blockId.js';
import { HexError } from './hex.js';
import { Address, Data, directDecoder, Hash, Quantity, Quantity64, RawString } from './schemas.js';

/** defineMethod calls a decoder schema's function directly; zod must reach the same outcome. */
describe('decoder schemas: direct call and zod agree', () => {
  const schemas: Array<[string, z.ZodType]> = [
    ['Quantity', Quantity],
    ['Quantity64', Quantity64],
    ['Data', Data],
    ['Address', Address],
    ['Hash', Hash],
    ['RawString', RawString],
    ['BlockNumberOrHash', BlockNumberOrHash],
    ['BlockNumberOrTag', BlockNumberOrTag],
  ];
  const inputs: unknown[] = [
    '0x0',
    '0x01',
    '0x1b4',
    '0x',
    '0xZZ',
    'latest',
    'earliest',
    `0x${'ab'.repeat(20)}`,
    `0x${'AB'.repeat(32)}`,
    `0x${'f'.repeat(17)}`,
    '1',
    12,
    null,
    true,
    [],
    {},
    { blockHash: `0x${'11'.repeat(32)}`, requireCanonical: true },
    { blockNumber: '0x5' },
    { blockNumber: '0x5', blockHash: `0x${'11'.repeat(32)}` },
    { foo: 1 },
  ];

  it.each(schemas)('%s', (_name, schema) => {
    const decode = directDecoder(schema);
    expect(decode).toBeTypeOf('function');
    let accepted = 0;
    for (const input of inputs) {
      const viaZod = schema.safeParse(input);
      let direct: { ok: true; value: unknown } | { ok: false; message: string };
      try {
        direct = { ok: true, value: decode!(input) };
      } catch (err) {
        expect(err).toBeInstanceOf(HexError);
        direct = { ok: false, message: (err as Error).message };
      }
      if (viaZod.success) {
        accepted++;
        expect([input, direct]).toEqual([input, { ok: true, value: viaZod.data }]);
      } else {
        expect([input, direct]).toEqual([input, { ok: false, message: viaZod.error.issues[0].message }]);
      }
    }
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThan(inputs.length);
  });
});
