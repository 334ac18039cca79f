import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { simulatedWork } from '../../test/helpers/until.js';
import { SETTINGS } from '../config/settings.js';
import { type DispatchLimits, type DispatchTarget, dispatch, scanRawIds } from './dispatch.js';
import { ServerError } from './errors.js';
import { createMethodTable, defineMethod, type MethodDefinition } from './method.js';

// The methods of the JSON-RPC 2.0 specification's examples (https://www.jsonrpc.org/specification#examples).
const subtract = defineMethod({
  name: 'subtract',
  params: [z.number(), z.number()],
  names: ['minuend', 'subtrahend'],
  handler: (_ctx: unknown, [a, b]) => a - b,
});
const sum: MethodDefinition<unknown> = {
  name: 'sum',
  call: async (_ctx, params) => (params as number[]).reduce((a, b) => a + b, 0),
};
const getData: MethodDefinition<unknown> = { name: 'get_data', call: async () => ['hello', 5] };
const seen: unknown[] = [];
const recorder = (name: string): MethodDefinition<unknown> => ({
  name,
  call: async (_ctx, params) => {
    seen.push([name, params]);
    return null;
  },
});
const boom: MethodDefinition<unknown> = {
  name: 'boom',
  call: async () => {
    throw new Error('database exploded at /secret/path');
  },
};
const custom: MethodDefinition<unknown> = {
  name: 'custom',
  call: async () => {
    throw new ServerError('custom failure', { reason: 'because' });
  },
};
/** How many `slow` calls run at once, and the most seen so far (concurrency tests). */
const slowCalls = { active: 0, max: 0 };
const slow: MethodDefinition<unknown> = {
  name: 'slow',
  call: async (_ctx, params) => {
    const [ms, value] = params as [number, unknown];
    slowCalls.active++;
    slowCalls.max = Math.max(slowCalls.max, slowCalls.active);
    try {
      await simulatedWork(ms);
      return value;
    } finally {
      slowCalls.active--;
    }
  },
};
const echo: MethodDefinition<unknown> = { name: 'echo', call: async (_ctx, params) => params ?? null };
const bigint: MethodDefinition<unknown> = { name: 'bigint', call: async () => 1n };
const badData: MethodDefinition<unknown> = {
  name: 'badData',
  call: async () => {
    throw new ServerError('with bigint data', 1n);
  },
};
const nothing: MethodDefinition<unknown> = { name: 'nothing', call: async () => undefined };

const target: DispatchTarget = {
  methods: createMethodTable([
    subtract,
    sum,
    getData,
    recorder('update'),
    recorder('foobar_notify'),
    recorder('notify_hello'),
    recorder('notify_sum'),
    boom,
    custom,
    slow,
    echo,
    bigint,
    badData,
    nothing,
  ]),
  context: undefined,
};

function quietLog() {
  return { error: vi.fn(), warn: vi.fn(), debug: vi.fn() };
}

/** The transport settings' defaults (geth's batch and name limits). */
const LIMITS: DispatchLimits = {
  maxBatchItems: SETTINGS.transport.httpMaxBatchItems.default,
  maxMethodNameLength: SETTINGS.transport.maxMethodNameLength.default,
  batchResponseMaxBytes: SETTINGS.transport.batchResponseMaxBytes.default,
};

async function run(body: string | Uint8Array, limits: DispatchLimits = LIMITS, log = quietLog()): Promise<unknown> {
  const out = await dispatch(body, target, log, limits);
  return out === undefined ? undefined : JSON.parse(out);
}

const invalidRequest = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } };

describe('dispatch: JSON-RPC 2.0 specification examples', () => {
  it('rpc call with positional parameters', async () => {
    expect(await run('{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}')).toEqual({ jsonrpc: '2.0', result: 19, id: 1 });
    expect(await run('{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}')).toEqual({ jsonrpc: '2.0', result: -19, id: 2 });
  });

  it('rpc call with named parameters', async () => {
    expect(await run('{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}')).toEqual({
      jsonrpc: '2.0',
      result: 19,
      id: 3,
    });
    expect(await run('{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}')).toEqual({
      jsonrpc: '2.0',
      result: 19,
      id: 4,
    });
  });

  it('a notification runs and gets no response', async () => {
    seen.length = 0;
    expect(await dispatch('{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}', target, quietLog(), LIMITS)).toBeUndefined();
    expect(await dispatch('{"jsonrpc": "2.0", "method": "foobar_notify"}', target, quietLog(), LIMITS)).toBeUndefined();
    expect(seen).toEqual([
      ['update', [1, 2, 3, 4, 5]],
      ['foobar_notify', undefined],
    ]);
  });

  it('a notification of an unknown method gets no response', async () => {
    expect(await dispatch('{"jsonrpc": "2.0", "method": "foobar"}', target, quietLog(), LIMITS)).toBeUndefined();
  });

  it('rpc call of non-existent method', async () => {
    expect(await run('{"jsonrpc": "2.0", "method": "foobar", "id": "1"}')).toEqual({
      jsonrpc: '2.0',
      error: { code: -32601, message: 'the method foobar does not exist/is not available' },
      id: '1',
    });
  });

  it('rpc call with invalid JSON', async () => {
    expect(await run('{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]')).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'parse error' },
      id: null,
    });
  });

  it('rpc call with invalid Request object', async () => {
    expect(await run('{"jsonrpc": "2.0", "method": 1, "params": "bar"}')).toEqual(invalidRequest);
  });

  it('rpc call Batch, invalid JSON', async () => {
    const body = '[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method"]';
    expect(await run(body)).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'parse error' }, id: null });
  });

  it('rpc call with an empty Array', async () => {
    expect(await run('[]')).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'empty batch' }, id: null });
  });

  it('rpc call with an invalid Batch (but not empty)', async () => {
    expect(await run('[1]')).toEqual([invalidRequest]);
  });

  it('rpc call with invalid Batch', async () => {
    expect(await run('[1,2,3]')).toEqual([invalidRequest, invalidRequest, invalidRequest]);
  });

  it('rpc call Batch (mixed)', async () => {
    const body = `[
      {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
      {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
      {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
      {"foo": "boo"},
      {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
      {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]`;
    expect(await run(body)).toEqual([
      { jsonrpc: '2.0', result: 7, id: '1' },
      { jsonrpc: '2.0', result: 19, id: '2' },
      invalidRequest,
      { jsonrpc: '2.0', error: { code: -32601, message: 'the method foo.get does not exist/is not available' }, id: '5' },
      { jsonrpc: '2.0', result: ['hello', 5], id: '9' },
    ]);
  });

  it('rpc call Batch (all notifications)', async () => {
    const body = '[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]';
    expect(await dispatch(body, target, quietLog(), LIMITS)).toBeUndefined();
  });
});

describe('dispatch: envelope', () => {
  it('wire format: jsonrpc, id, then result or error', async () => {
    expect(await dispatch('{"jsonrpc":"2.0","id":7,"method":"get_data"}', target, quietLog(), LIMITS)).toBe('{"jsonrpc":"2.0","id":7,"result":["hello",5]}');
    expect(await dispatch('{"id":7,"jsonrpc":"2.0","method":"custom"}', target, quietLog(), LIMITS)).toBe(
      '{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"custom failure","data":{"reason":"because"}}}',
    );
  });

  it.each([
    ['missing jsonrpc', '{"id":1,"method":"get_data"}', 1],
    ['jsonrpc 1.0', '{"jsonrpc":"1.0","id":1,"method":"get_data"}', 1],
    ['jsonrpc as number', '{"jsonrpc":2.0,"id":"a","method":"get_data"}', 'a'],
    ['missing method', '{"jsonrpc":"2.0","id":1}', 1],
    ['method not a string', '{"jsonrpc":"2.0","id":1,"method":["get_data"]}', 1],
    ['params a string', '{"jsonrpc":"2.0","id":1,"method":"echo","params":"bar"}', 1],
    ['params a number', '{"jsonrpc":"2.0","id":1,"method":"echo","params":5}', 1],
    ['params a boolean', '{"jsonrpc":"2.0","id":1,"method":"echo","params":true}', 1],
    ['id an object', '{"jsonrpc":"2.0","id":{"a":1},"method":"get_data"}', null],
    ['id an array', '{"jsonrpc":"2.0","id":[1],"method":"get_data"}', null],
    ['id a boolean', '{"jsonrpc":"2.0","id":true,"method":"get_data"}', null],
    ['a string', '"hello"', null],
    ['a number', '42', null],
    ['null', 'null', null],
    ['missing jsonrpc without id (still answered)', '{"method":"get_data"}', null],
  ])('-32600: %s', async (_name, body, id) => {
    expect(await run(body)).toEqual({ ...invalidRequest, id });
  });

  it('params null or absent mean no arguments', async () => {
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"echo","params":null}')).toEqual({ jsonrpc: '2.0', id: 1, result: null });
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"echo"}')).toEqual({ jsonrpc: '2.0', id: 1, result: null });
  });

  it('params as an object go to the method (defineMethod without names → non-array args)', async () => {
    const noNames = defineMethod({ name: 'pos', params: [z.number()], handler: () => 1 });
    const out = await dispatch(
      '{"jsonrpc":"2.0","id":1,"method":"pos","params":{"a":1}}',
      { methods: createMethodTable([noNames]), context: 0 },
      quietLog(),
      LIMITS,
    );
    expect(JSON.parse(out!)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'non-array args' } });
  });

  it('method name of 2048 characters is looked up; 2049 is -32600', async () => {
    const at = 'x'.repeat(2048);
    expect(await run(`{"jsonrpc":"2.0","id":1,"method":"${at}"}`)).toMatchObject({ error: { code: -32601 } });
    expect(await run(`{"jsonrpc":"2.0","id":1,"method":"${at}x"}`)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32600, message: 'method name too long: 2049 > 2048' },
    });
  });

  it('a method name that is an Object.prototype member is not found', async () => {
    for (const m of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(await run(`{"jsonrpc":"2.0","id":1,"method":"${m}"}`)).toMatchObject({ error: { code: -32601 } });
    }
  });

  it('extra members are ignored', async () => {
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"get_data","foo":1}')).toEqual({ jsonrpc: '2.0', id: 1, result: ['hello', 5] });
  });

  it('a result of undefined is sent as null', async () => {
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"nothing"}')).toEqual({ jsonrpc: '2.0', id: 1, result: null });
  });

  it('a plain Error becomes -32603 internal error; the message and stack go to the log only', async () => {
    const log = quietLog();
    const out = await dispatch('{"jsonrpc":"2.0","id":"q","method":"boom"}', target, log, LIMITS);
    expect(out).toBe('{"jsonrpc":"2.0","id":"q","error":{"code":-32603,"message":"internal error"}}');
    expect(log.error).toHaveBeenCalledOnce();
    const [fields] = log.error.mock.calls[0];
    expect(fields.err).toBeInstanceOf(Error);
    expect(fields.err.stack).toContain('database exploded');
    expect(fields).toMatchObject({ rpcMethod: 'boom', rpcId: '"q"' });
  });

  it('a domain error a method does not declare (raises) is answered as mapped, and the dispatcher warns; a declared one is not warned about', async () => {
    class PlantedError extends Error {
      override readonly name = 'PlantedError';
    }
    const raising = (name: string, raises: readonly string[]): MethodDefinition<unknown> => ({
      name,
      raises,
      call: async () => {
        throw new PlantedError('planted');
      },
    });
    const mapped: DispatchTarget = {
      methods: createMethodTable([raising('declares_it', ['PlantedError']), raising('declares_other', ['OtherError'])], (err) =>
        err instanceof PlantedError ? new ServerError(err.message) : undefined,
      ),
      context: undefined,
    };
    const answer = (id: number) => `{"jsonrpc":"2.0","id":${id},"error":{"code":-32000,"message":"planted"}}`;
    const log = quietLog();
    expect(await dispatch('{"jsonrpc":"2.0","id":1,"method":"declares_it"}', mapped, log, LIMITS)).toBe(answer(1));
    expect(log.warn).not.toHaveBeenCalled();
    expect(await dispatch('{"jsonrpc":"2.0","id":2,"method":"declares_other"}', mapped, log, LIMITS)).toBe(answer(2));
    expect(log.warn).toHaveBeenCalledExactlyOnceWith(
      { rpcMethod: 'declares_other', error: 'PlantedError' },
      'method raised a domain error it does not declare',
    );
  });

  it('an internal error in a notification is logged but not answered', async () => {
    const log = quietLog();
    expect(await dispatch('{"jsonrpc":"2.0","method":"boom"}', target, log, LIMITS)).toBeUndefined();
    expect(log.error).toHaveBeenCalledOnce();
  });

  it('a result JSON cannot encode (bigint) becomes -32603', async () => {
    const log = quietLog();
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"bigint"}', undefined, log)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: 'internal error' },
    });
    expect(log.error).toHaveBeenCalledOnce();
  });

  it('an RpcError whose data JSON cannot encode becomes -32603', async () => {
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"badData"}')).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'internal error' } });
  });

  it('bodies that are not UTF-8 are a parse error; a BOM is skipped', async () => {
    expect(await run(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]))).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'parse error: body is not valid UTF-8' },
    });
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"jsonrpc":"2.0","id":1,"method":"get_data"}')]);
    expect(await run(withBom)).toMatchObject({ id: 1, result: ['hello', 5] });
    expect(await run('\ufeff{"jsonrpc":"2.0","id":1,"method":"get_data"}')).toMatchObject({ id: 1, result: ['hello', 5] });
  });

  it.each([[''], ['   '], ['{'], ['[1,2'], ['{"jsonrpc":"2.0",}'], ['nul'], ['\u0000']])('parse error: %j', async (body) => {
    expect(await run(body)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
  });

  it('10,000-deep nesting is an invalid request inside a batch, not a crash', async () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    expect(await run(deep)).toEqual([invalidRequest]);
    const deepParams = `{"jsonrpc":"2.0","id":5,"method":"get_data","params":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    expect(await run(deepParams)).toMatchObject({ id: 5, result: ['hello', 5] });
  });
});

describe('dispatch: ids', () => {
  it.each([
    ['a huge integer', '123456789012345678901234567890'],
    ['a decimal with trailing zero', '1.10'],
    ['an exponent', '1e2'],
    ['a number past double range', '1e400'],
    ['negative zero', '-0'],
    ['a negative decimal', '-12.5000'],
    ['2^53 + 1', '9007199254740993'],
  ])('a numeric id is echoed with its exact text: %s', async (_name, idText) => {
    const out = await dispatch(`{"jsonrpc":"2.0","id":${idText},"method":"get_data"}`, target, quietLog(), LIMITS);
    expect(out).toBe(`{"jsonrpc":"2.0","id":${idText},"result":["hello",5]}`);
  });

  it('exact ids in a batch, per item, including errors', async () => {
    const body =
      '[{"jsonrpc":"2.0","id":1.50,"method":"get_data"},{"jsonrpc":"2.0","id":"s","method":"nope"},{"jsonrpc":"2.0","id":99999999999999999999,"method":"nope"}]';
    const out = await dispatch(body, target, quietLog(), LIMITS);
    expect(out).toBe(
      '[{"jsonrpc":"2.0","id":1.50,"result":["hello",5]},' +
        '{"jsonrpc":"2.0","id":"s","error":{"code":-32601,"message":"the method nope does not exist/is not available"}},' +
        '{"jsonrpc":"2.0","id":99999999999999999999,"error":{"code":-32601,"message":"the method nope does not exist/is not available"}}]',
    );
  });

  it('string ids are echoed as strings, null as null', async () => {
    expect(await run('{"jsonrpc":"2.0","id":"0x1","method":"get_data"}')).toMatchObject({ id: '0x1' });
    expect(await run('{"jsonrpc":"2.0","id":"","method":"get_data"}')).toMatchObject({ id: '' });
    expect(await run('{"jsonrpc":"2.0","id":"a\\"b\\\\","method":"get_data"}')).toMatchObject({ id: 'a"b\\' });
    expect(await run('{"jsonrpc":"2.0","id":null,"method":"get_data"}')).toEqual({ jsonrpc: '2.0', id: null, result: ['hello', 5] });
  });

  it('an escaped "id" key and duplicate keys resolve as JSON.parse does (last wins)', async () => {
    expect(await dispatch('{"jsonrpc":"2.0","\\u0069d":1.0,"method":"get_data"}', target, quietLog(), LIMITS)).toContain('"id":1.0,');
    expect(await dispatch('{"jsonrpc":"2.0","id":"x","id":2.0,"method":"get_data"}', target, quietLog(), LIMITS)).toContain('"id":2.0,');
    expect(await dispatch('{"jsonrpc":"2.0","id":2.0,"id":"x","method":"get_data"}', target, quietLog(), LIMITS)).toContain('"id":"x",');
  });
});

describe('dispatch: batches', () => {
  const limits: DispatchLimits = { maxBatchItems: 3, maxMethodNameLength: 2048, batchResponseMaxBytes: 25_000_000 };

  it('items run concurrently and answer in request order', async () => {
    slowCalls.max = 0;
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'slow', params: [120, 'a'] },
      { jsonrpc: '2.0', id: 2, method: 'slow', params: [10, 'b'] },
      { jsonrpc: '2.0', id: 3, method: 'slow', params: [120, 'c'] },
    ]);
    const out = (await run(body)) as Array<{ id: number; result: string }>;
    expect(out.map((r) => [r.id, r.result])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);
    expect(slowCalls.max).toBe(3);
  });

  it('one failing item does not affect the others', async () => {
    const body = '[{"jsonrpc":"2.0","id":1,"method":"boom"},{"jsonrpc":"2.0","id":2,"method":"get_data"},{"jsonrpc":"2.0","id":3,"method":"custom"}]';
    expect(await run(body)).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'internal error' } },
      { jsonrpc: '2.0', id: 2, result: ['hello', 5] },
      { jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'custom failure', data: { reason: 'because' } } },
    ]);
  });

  it('a batch at the limit runs; over it, one -32600 `batch too large` with the first id, nothing runs', async () => {
    const item = (id: number) => ({ jsonrpc: '2.0', id, method: 'get_data' });
    expect(await run(JSON.stringify([item(1), item(2), item(3)]), limits)).toHaveLength(3);
    seen.length = 0;
    const over = JSON.stringify([item(7), item(8), item(9), { jsonrpc: '2.0', method: 'update', params: [1] }]);
    expect(await dispatch(over, target, quietLog(), limits)).toBe('[{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"batch too large"}}]');
    expect(seen).toEqual([]);
  });

  it('batch too large: id null when the first item has none', async () => {
    const over = JSON.stringify([1, { jsonrpc: '2.0', id: 1, method: 'x' }, 3, 4]);
    expect(await run(over, limits)).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch too large' } }]);
  });

  it('responses past batchResponseMaxBytes become -32003 response too large', async () => {
    const small: DispatchLimits = { maxBatchItems: 10, maxMethodNameLength: 2048, batchResponseMaxBytes: 200 };
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'echo', params: ['x'.repeat(50)] },
      { jsonrpc: '2.0', id: 2, method: 'echo', params: ['x'.repeat(150)] },
      { jsonrpc: '2.0', id: 3, method: 'echo', params: ['y'] },
    ]);
    expect(await run(body, small)).toEqual([
      { jsonrpc: '2.0', id: 1, result: ['x'.repeat(50)] },
      { jsonrpc: '2.0', id: 2, error: { code: -32003, message: 'response too large' } },
      { jsonrpc: '2.0', id: 3, error: { code: -32003, message: 'response too large' } },
    ]);
  });

  it('notifications inside a batch run but are left out of the answer', async () => {
    seen.length = 0;
    const body = '[{"jsonrpc":"2.0","method":"update","params":[1]},{"jsonrpc":"2.0","id":1,"method":"get_data"}]';
    expect(await run(body)).toEqual([{ jsonrpc: '2.0', id: 1, result: ['hello', 5] }]);
    expect(seen).toEqual([['update', [1]]]);
  });

  it('a nested batch is an invalid item', async () => {
    expect(await run('[[{"jsonrpc":"2.0","id":1,"method":"get_data"}]]')).toEqual([invalidRequest]);
  });
});

describe('scanRawIds', () => {
  it.each([
    ['{"id":1}', ['1']],
    ['  { "a" : [1,{"id":2}] , "id" : -3.5e+2 } ', ['-3.5e+2']],
    ['{"id":"1"}', [undefined]],
    ['{"a":"}\\"{","id":10}', ['10']],
    ['[{"id":1},2,[{"id":3}],{"x":{"id":4}},{"id":5}]', ['1', undefined, undefined, undefined, '5']],
    ['[]', []],
    ['{}', [undefined]],
    ['"x"', []],
  ])('%s', (text, expected) => {
    expect(scanRawIds(text)).toEqual(expected);
  });

  it('agrees with JSON.parse on generated batches (strings with quotes, escapes and brackets, nesting)', () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pieces = ['"', '\\', '{', '}', '[', ']', ',', ':', 'id', '"id"', ' ', 'é', '\u0000', 'x'];
    const str = () => Array.from({ length: rand(6) }, () => pieces[rand(pieces.length)]).join('');
    const value = (depth: number): unknown => {
      switch (rand(depth > 3 ? 3 : 5)) {
        case 0:
          return rand(1000) - 500;
        case 1:
          return str();
        case 2:
          return rand(2) === 0 ? null : true;
        case 3:
          return Array.from({ length: rand(4) }, () => value(depth + 1));
        default:
          return Object.fromEntries(Array.from({ length: rand(4) }, () => [str(), value(depth + 1)]));
      }
    };
    for (let round = 0; round < 300; round++) {
      const batch = Array.from({ length: 1 + rand(4) }, () => {
        const req: Record<string, unknown> = { [str()]: value(0), params: value(0) };
        if (rand(4) > 0) req.id = rand(2) === 0 ? rand(1e6) / 8 : str();
        return rand(6) === 0 ? value(0) : req;
      });
      const text = round % 2 === 0 ? JSON.stringify(batch) : JSON.stringify(batch, null, 2);
      const parsed = JSON.parse(text) as unknown[];
      const expected = parsed.map((r) =>
        typeof r === 'object' && r !== null && !Array.isArray(r) && typeof (r as { id?: unknown }).id === 'number'
          ? String((r as { id: number }).id)
          : undefined,
      );
      expect(scanRawIds(text), text).toEqual(expected);
    }
  });
});
