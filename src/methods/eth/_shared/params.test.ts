import { describe, expect, it } from 'vitest';
import { Bool, FloatList, HexOrDecimal64, Index } from './params.js';

const err = (r: { success: boolean; error?: { issues: { message: string }[] } }) => (r.success ? undefined : r.error?.issues[0]?.message);

describe('HexOrDecimal64 (geth math.HexOrDecimal64)', () => {
  it.each([
    ['0x1b', 27n],
    ['0X01', 1n],
    ['27', 27n],
    [27, 27n],
    ['', 0n],
    ['0xffffffffffffffff', 2n ** 64n - 1n],
  ])('reads %j', (input, want) => {
    expect(HexOrDecimal64.parse(input)).toBe(want);
  });
  it.each([['0x'], ['-1'], ['1.5'], [1.5], ['0x10000000000000000'], ['abc']])('rejects %j', (input) => {
    expect(err(HexOrDecimal64.safeParse(input))).toMatch(/^invalid hex or decimal integer /);
  });
  it('rejects a non-string, non-number', () => {
    expect(err(HexOrDecimal64.safeParse(true))).toBe('json: cannot unmarshal boolean into Go value of type math.HexOrDecimal64');
  });
});

describe('Bool, Index, FloatList', () => {
  it('Bool takes only JSON booleans', () => {
    expect(Bool.parse(true)).toBe(true);
    expect(err(Bool.safeParse('true'))).toBe('json: cannot unmarshal string into Go value of type bool');
  });
  it('Index is a strict quantity', () => {
    expect(Index.parse('0x2')).toBe(2);
    expect(err(Index.safeParse('0x02'))).toBe('hex number with leading zero digits');
    expect(err(Index.safeParse(2))).toBe('json: cannot unmarshal number into Go value of type hexutil.Uint');
  });
  it('FloatList: numbers only; null is empty', () => {
    expect(FloatList.parse([25, 75.5])).toEqual([25, 75.5]);
    expect(FloatList.parse(null)).toEqual([]);
    expect(err(FloatList.safeParse(['25']))).toBe('json: cannot unmarshal string into Go value of type float64');
    expect(err(FloatList.safeParse(25))).toBe('json: cannot unmarshal number into Go value of type []float64');
  });
});
