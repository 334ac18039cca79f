import { describe, expect, it } from 'vitest';
import { answerEachWith } from './dispatch.js';
import { ServerError } from './errors.js';

/** The answer a shutdown's cutoff gives a message still running (`transport/drain.ts`). */
describe('answerEachWith', () => {
  const error = new ServerError('the node is shutting down');
  const e = '{"code":-32000,"message":"the node is shutting down"}';

  it('a request: the error with its id, exactly as written', () => {
    expect(answerEachWith('{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"eth_call"}', error)).toBe(
      `{"jsonrpc":"2.0","id":123456789012345678901234567890,"error":${e}}`,
    );
    expect(answerEachWith(Buffer.from('\ufeff{"jsonrpc":"2.0","id":"x","method":"eth_call"}'), error)).toBe(`{"jsonrpc":"2.0","id":"x","error":${e}}`);
  });

  it('a batch: one error per item with an id, in order; notifications get none', () => {
    expect(answerEachWith('[{"id":1,"method":"a"},{"method":"b"},{"id":1.10,"method":"c"},7]', error)).toBe(
      `[{"jsonrpc":"2.0","id":1,"error":${e}},{"jsonrpc":"2.0","id":1.10,"error":${e}},{"jsonrpc":"2.0","id":null,"error":${e}}]`,
    );
    expect(answerEachWith('[{"method":"b"}]', error)).toBeUndefined();
    expect(answerEachWith('{"method":"b"}', error)).toBeUndefined();
  });

  it('what does not parse, or an empty batch: one error, id null', () => {
    expect(answerEachWith('{bad', error)).toBe(`{"jsonrpc":"2.0","id":null,"error":${e}}`);
    expect(answerEachWith('[]', error)).toBe(`{"jsonrpc":"2.0","id":null,"error":${e}}`);
  });
});
