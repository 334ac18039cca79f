import { describe, expect, it } from 'vitest';
import type { StoredLog } from '../../../chain/receipts.js';
import { dataToBytes } from '../../../codec/hex.js';
import { logsBloom } from './bloom.js';
import { compileLogFilter, LogFilterSchema } from './logFilter.js';

const A = `0x${'aa'.repeat(20)}`;
const B = `0x${'bb'.repeat(20)}`;
const T1 = `0x${'11'.repeat(32)}`;
const T2 = `0x${'22'.repeat(32)}`;
const T3 = `0x${'33'.repeat(32)}`;
const b = dataToBytes;

function parse(value: unknown) {
  const r = LogFilterSchema.safeParse(value);
  return r.success ? r.data : { error: r.error.issues[0]?.message };
}

describe('LogFilterSchema', () => {
  it('defaults: no bounds, any address, no topics', () => {
    expect(parse({})).toEqual({ addresses: [], topics: [] });
  });
  it('address: one string or a list', () => {
    expect(parse({ address: A })).toEqual({ addresses: [b(A)], topics: [] });
    expect(parse({ address: [A, B] })).toEqual({ addresses: [b(A), b(B)], topics: [] });
  });
  it('topics: null, a topic, alternatives; empty list and null inside a list are wildcards', () => {
    expect(parse({ topics: [null, T1, [T2, T3], [], [T1, null]] })).toEqual({
      addresses: [],
      topics: [[], [b(T1)], [b(T2), b(T3)], [], []],
    });
  });
  it('block bounds: numbers and tags; null counts as absent', () => {
    expect(parse({ fromBlock: '0x1', toBlock: 'latest', blockHash: null })).toEqual({
      fromBlock: { kind: 'number', number: 1n },
      toBlock: { kind: 'tag', tag: 'latest' },
      addresses: [],
      topics: [],
    });
  });
  it('field names match case-insensitively and unknown fields are ignored (Go encoding/json)', () => {
    expect(parse({ FromBlock: '0x2', extra: 1 })).toMatchObject({ fromBlock: { kind: 'number', number: 2n } });
  });
  it.each([
    [{ blockHash: `0x${'00'.repeat(32)}`, fromBlock: '0x1' }, 'cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other'],
    [{ address: 5 }, 'invalid addresses in query'],
    [{ address: [A, 5] }, 'non-string address at index 1'],
    [{ address: '0xaa' }, 'invalid address: hex has invalid length 1 after decoding; expected 20 for address'],
    [{ address: [A, 'aa'] }, 'invalid address at index 1: hex string without 0x prefix'],
    [{ topics: [5] }, 'invalid topic(s)'],
    [{ topics: [[T1, 5]] }, 'invalid topic(s)'],
    [{ topics: ['0x11'] }, 'hex has invalid length 1 after decoding; expected 32 for topic'],
    [{ fromBlock: '0x01' }, 'hex number with leading zero digits'],
    ['latest', 'json: cannot unmarshal string into Go value of type filters.FilterCriteria'],
  ])('rejects %j: %s', (value, message) => {
    expect(parse(value)).toEqual({ error: message });
  });
});

describe('compileLogFilter', () => {
  const log = (address: string, ...topics: string[]): StoredLog => [b(address), topics.map(b), new Uint8Array()];

  it('an empty filter matches every log', () => {
    expect(compileLogFilter([], []).matches(log(A))).toBe(true);
  });
  it('addresses are alternatives', () => {
    const f = compileLogFilter([b(A), b(B)], []);
    expect(f.matches(log(A))).toBe(true);
    expect(f.matches(log(B, T1))).toBe(true);
    expect(f.matches(log(`0x${'cc'.repeat(20)}`))).toBe(false);
  });
  it('each position must hold one of its alternatives; wildcards skip a position', () => {
    const f = compileLogFilter([], [[], [b(T2), b(T3)]]);
    expect(f.matches(log(A, T1, T2))).toBe(true);
    expect(f.matches(log(A, T1, T3, T1))).toBe(true);
    expect(f.matches(log(A, T2, T1))).toBe(false);
  });
  it('a log with fewer topics than the filter has positions never matches, even for trailing wildcards (geth)', () => {
    expect(compileLogFilter([], [[b(T1)], []]).matches(log(A, T1))).toBe(false);
    expect(compileLogFilter([], [[b(T1)], []]).matches(log(A, T1, T3))).toBe(true);
  });
  it('the bloom pre-filter never rules out a block holding a matching log', () => {
    const logs = [log(A, T1, T2), log(B, T3)];
    const bloom = logsBloom(logs);
    expect(compileLogFilter([b(A)], [[b(T1)], [b(T2)]]).mayMatchBloom(bloom)).toBe(true);
    expect(compileLogFilter([b(B), b(`0x${'cc'.repeat(20)}`)], [[b(T3)]]).mayMatchBloom(bloom)).toBe(true);
    expect(compileLogFilter([], [[], [b(T2)]]).mayMatchBloom(bloom)).toBe(true);
  });
  it('the bloom pre-filter rules out a block without the address or a topic', () => {
    const bloom = logsBloom([log(A, T1)]);
    expect(compileLogFilter([b(B)], []).mayMatchBloom(bloom)).toBe(false);
    expect(compileLogFilter([b(A)], [[b(T2), b(T3)]]).mayMatchBloom(bloom)).toBe(false);
    expect(compileLogFilter([], []).mayMatchBloom(new Uint8Array(256))).toBe(true);
  });
});
