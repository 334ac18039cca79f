import { describe, expect, it } from 'vitest';
import { formatContinuationToken, parseContinuationToken } from './continuationToken.js';
import { InvalidContinuationTokenError } from './errors.js';

describe('continuation token', () => {
  it('formats as "<block>-<offset>"', () => {
    expect(formatContinuationToken({ block: 619596, offset: 17 })).toBe('619596-17');
    expect(formatContinuationToken({ block: 0, offset: 0 })).toBe('0-0');
  });

  it('parses what it formats', () => {
    for (const token of [
      { block: 0, offset: 0 },
      { block: 1234, offset: 4567 },
      { block: Number.MAX_SAFE_INTEGER, offset: 2 ** 32 - 1 },
    ]) {
      expect(parseContinuationToken(formatContinuationToken(token))).toEqual(token);
    }
  });

  it.each([
    ['empty', ''],
    ['garbage', 'invalid'],
    ['no offset (pathfinder test case)', '1234'],
    ['three parts', '1234-5678-9012'],
    ['negative block', '-1234-5678'],
    ['negative offset', '1234--1'],
    ['plus sign', '+1-2'],
    ['leading zero in block', '01-2'],
    ['leading zero in offset', '1-02'],
    ['spaces', ' 1-2'],
    ['trailing newline', '1-2\n'],
    ['hex', '0x10-1'],
    ['exponent', '1e3-1'],
    ['decimal point', '1.0-1'],
    ['block beyond 2^53', '9007199254740992-0'],
    ['offset beyond 2^32 - 1', '1-4294967296'],
    ['offset beyond 2^53', '1-9007199254740992'],
    ['very long', `${'9'.repeat(100)}-1`],
    ['unicode digits', '١-٢'],
  ])('rejects %s as an invalid token (33 on the wire)', (_name, input) => {
    let caught: unknown;
    try {
      parseContinuationToken(input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidContinuationTokenError);
    expect((caught as InvalidContinuationTokenError).name).toBe('InvalidContinuationTokenError');
  });

  it.each([[null], [undefined], [12], [{ block: 1, offset: 2 }], [['1-2']]])('rejects the non-string %j as an invalid token', (input) => {
    expect(() => parseContinuationToken(input)).toThrow(InvalidContinuationTokenError);
  });
});
