import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/settings.js';
import { createLogger } from '../../src/log/logger.js';
import { createMethodTable } from '../../src/rpc/method.js';

type TransportLimits = Config['transport'];

import {
  forEachTransport,
  httpClient,
  type RawReply,
  rawHttp,
  type StartedServer,
  startServer,
  TEST_API_KEY,
  WsUpgradeError,
  wsClient,
} from '../helpers/rpcClient.js';
import { TOY_SECRET_MESSAGE, toyMethods, toyNetwork } from '../helpers/toyMethods.js';
import { until } from '../helpers/until.js';

/** Small limits so that every limit is reachable with tiny bodies. */
const LIMITS: Partial<TransportLimits> = {
  httpMaxBodyBytes: 64 * 1024,
  wsMaxMessageBytes: 64 * 1024,
  httpMaxBatchItems: 5,
  wsMaxBatchItems: 5,
  wsMaxInFlightMessages: 4,
  wsCloseGraceMs: 300,
};
const SECOND_KEY = 'second-key';

const main = toyNetwork({ name: 'main' });
// A second network on its own host name that serves only test_add: test_echo is -32601 there.
const other = toyNetwork({ name: 'other', hostnames: ['other.localhost'], methods: createMethodTable([toyMethods.get('test_add')!]) });
let server: StartedServer;

beforeAll(async () => {
  server = await startServer({ networks: [main, other], apiKeys: [TEST_API_KEY, SECOND_KEY], limits: LIMITS });
});
afterAll(async () => {
  await server.close();
});

const invalidRequest = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } };
const parseError = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } };

forEachTransport(
  'transport envelope',
  () => server,
  (rpc, transport) => {
    /** JSON-RPC-level answers travel with HTTP 200 (geth); WS has no status. */
    const expectRpcStatus = (reply: RawReply) => expect(reply.status).toBe(transport === 'http' ? 200 : undefined);

    it('call: result', async () => {
      const res = await rpc().call('test_echo', [1, 'two', { three: 3 }]);
      expect(res).toEqual({ jsonrpc: '2.0', id: res.id, result: [1, 'two', { three: 3 }] });
    });

    it('id echo: number, string, null, huge integer, decimal', async () => {
      for (const id of ['7', '"abc"', 'null', '123456789012345678901234567890', '1.10', '-0', '1e400']) {
        const reply = await rpc().send(`{"jsonrpc":"2.0","id":${id},"method":"test_echo","params":[]}`);
        expectRpcStatus(reply);
        expect(reply.text).toBe(`{"jsonrpc":"2.0","id":${id},"result":[]}`);
      }
    });

    it('-32700: truncated JSON', async () => {
      const reply = await rpc().send('{"jsonrpc":"2.0","id":1,"method":"test_echo","par');
      expectRpcStatus(reply);
      expect(reply.body).toEqual(parseError);
    });

    it.each([
      ['missing jsonrpc', '{"id":1,"method":"test_echo"}', 1],
      ['wrong jsonrpc', '{"jsonrpc":"1.0","id":1,"method":"test_echo"}', 1],
      ['missing method', '{"jsonrpc":"2.0","id":"m"}', 'm'],
      ['method not a string', '{"jsonrpc":"2.0","id":2,"method":42}', 2],
      ['params a string', '{"jsonrpc":"2.0","id":3,"method":"test_echo","params":"bar"}', 3],
      ['id an object', '{"jsonrpc":"2.0","id":{},"method":"test_echo"}', null],
      ['id an array', '{"jsonrpc":"2.0","id":[1],"method":"test_echo"}', null],
      ['id a boolean', '{"jsonrpc":"2.0","id":false,"method":"test_echo"}', null],
      ['a bare number', '5', null],
    ])('-32600: %s', async (_name, body, id) => {
      const reply = await rpc().send(body);
      expectRpcStatus(reply);
      expect(reply.body).toEqual({ ...invalidRequest, id });
    });

    it('-32600: method name over 2048 characters', async () => {
      const reply = await rpc().send({ jsonrpc: '2.0', id: 4, method: 'm'.repeat(2049) });
      expectRpcStatus(reply);
      expect(reply.body).toEqual({ jsonrpc: '2.0', id: 4, error: { code: -32600, message: 'method name too long: 2049 > 2048' } });
    });

    it('-32601: unknown method', async () => {
      const res = await rpc().call('eth_nope', []);
      expect(res).toEqual({ jsonrpc: '2.0', id: res.id, error: { code: -32601, message: 'the method eth_nope does not exist/is not available' } });
    });

    it('-32602: defineMethod argument errors', async () => {
      expect((await rpc().call('test_add', [1])).error).toEqual({ code: -32602, message: 'missing value for required argument 1' });
      expect((await rpc().call('test_add', [1, 2, 3])).error).toEqual({ code: -32602, message: 'too many arguments, want at most 2' });
      expect((await rpc().call('test_add', { a: 1 })).error).toEqual({ code: -32602, message: 'non-array args' });
      expect((await rpc().call('test_add', [1, 'x'])).error).toMatchObject({ code: -32602, message: expect.stringMatching(/^invalid argument 1: /) });
      expect((await rpc().call('test_add', [1, 2])).result).toBe(3);
    });

    it('-32603: a plain Error is hidden behind `internal error`', async () => {
      const reply = await rpc().send({ jsonrpc: '2.0', id: 'e', method: 'test_throw' });
      expectRpcStatus(reply);
      expect(reply.text).toBe('{"jsonrpc":"2.0","id":"e","error":{"code":-32603,"message":"internal error"}}');
      expect(reply.text).not.toContain(TOY_SECRET_MESSAGE);
    });

    it('-32603: a result JSON cannot encode', async () => {
      const res = await rpc().call('test_bigint', []);
      expect(res.error).toEqual({ code: -32603, message: 'internal error' });
    });

    it('RpcError with data is sent as is', async () => {
      const res = await rpc().call('test_rpcError', []);
      expect(res.error).toEqual({ code: -32000, message: 'custom failure', data: { reason: 'because' } });
    });

    it('notification: runs, no response', async () => {
      const before = main.context.recorded.length;
      const reply = await rpc().send({ jsonrpc: '2.0', method: 'test_record', params: [transport] }, { noReply: true });
      expectRpcStatus(reply);
      expect(reply.text).toBe('');
      await expect.poll(() => main.context.recorded.slice(before)).toEqual([[transport]]);
    });

    it('batch: mixed, in request order, notifications left out, invalid items -32600', async () => {
      const reply = await rpc().send(
        '[{"jsonrpc":"2.0","id":1,"method":"test_sleep","params":[60]},' +
          '{"jsonrpc":"2.0","method":"test_record","params":["in batch"]},' +
          '{"jsonrpc":"2.0","id":"b","method":"test_echo","params":["fast"]},' +
          '1,' +
          '{"jsonrpc":"2.0","id":3,"method":"test_nope"}]',
      );
      expectRpcStatus(reply);
      expect(reply.body).toEqual([
        { jsonrpc: '2.0', id: 1, result: 60 },
        { jsonrpc: '2.0', id: 'b', result: ['fast'] },
        invalidRequest,
        { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'the method test_nope does not exist/is not available' } },
      ]);
    });

    it('batch: via batch()', async () => {
      const res = await rpc().batch([
        { method: 'test_add', params: [1, 2] },
        { method: 'test_echo', params: ['x'] },
      ]);
      expect(res.map((r) => r.result)).toEqual([3, ['x']]);
    });

    it('batch: empty → one -32600 `empty batch`, not an array', async () => {
      const reply = await rpc().send('[]');
      expectRpcStatus(reply);
      expect(reply.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } });
    });

    it('batch: [1,2,3] → three -32600', async () => {
      expect((await rpc().send('[1,2,3]')).body).toEqual([invalidRequest, invalidRequest, invalidRequest]);
    });

    it('batch: only notifications → nothing', async () => {
      const reply = await rpc().send(
        [
          { jsonrpc: '2.0', method: 'test_record', params: ['n1'] },
          { jsonrpc: '2.0', method: 'test_record', params: ['n2'] },
        ],
        { noReply: true },
      );
      expect(reply.text).toBe('');
    });

    it('batch: over the limit → [-32600 `batch too large`] with the first id', async () => {
      const items = Array.from({ length: 6 }, (_, i) => ({ jsonrpc: '2.0', id: 100 + i, method: 'test_echo' }));
      const reply = await rpc().send(items);
      expectRpcStatus(reply);
      expect(reply.body).toEqual([{ jsonrpc: '2.0', id: 100, error: { code: -32600, message: 'batch too large' } }]);
      expect((await rpc().send(items.slice(0, 5))).body).toHaveLength(5);
    });

    it('malformed-input sweep, then a normal request still works', async () => {
      const garbage = randomBytes(512);
      garbage[0] = 0xff; // never valid UTF-8
      const cases: Array<[string, string | Uint8Array, unknown]> = [
        ['truncated', '{"jsonrpc":"2.0","id":1,"method":"test_echo"', parseError],
        ['only an opening bracket', '[', parseError],
        ['empty', '', parseError],
        ['whitespace', ' \n\t ', parseError],
        ['10,000-deep nesting', '['.repeat(10_000) + ']'.repeat(10_000), [invalidRequest]],
        ['10,000-deep nesting in params', `{"jsonrpc":"2.0","id":1,"method":"test_add","params":${'['.repeat(10_000)}${']'.repeat(10_000)}}`, undefined],
        ['binary garbage', garbage, { ...parseError, error: { code: -32700, message: 'parse error: body is not valid UTF-8' } }],
        [
          'invalid UTF-8 inside a string',
          Buffer.from([...Buffer.from('{"jsonrpc":"2.0","id":1,"method":"'), 0xc3, 0x28, ...Buffer.from('"}')]),
          {
            ...parseError,
            error: { code: -32700, message: 'parse error: body is not valid UTF-8' },
          },
        ],
        ['a NUL byte', '\u0000', parseError],
        ['a huge number literal as id', `{"jsonrpc":"2.0","id":${'9'.repeat(5000)},"method":"test_nope"}`, undefined],
      ];
      for (const [name, body, expected] of cases) {
        const reply = await rpc().send(body);
        expectRpcStatus(reply);
        if (expected !== undefined) expect(reply.body, name).toEqual(expected);
        else expect(reply.body, name).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
      }
      const hugeId = '9'.repeat(5000);
      expect((await rpc().send(`{"jsonrpc":"2.0","id":${hugeId},"method":"test_echo"}`)).text).toBe(`{"jsonrpc":"2.0","id":${hugeId},"result":null}`);
      expect((await rpc().call('test_add', [2, 2])).result).toBe(4);
    });
  },
);

describe('HTTP transport', () => {
  const post = (path: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }, method = 'POST') =>
    rawHttp(`${server.url}${path}`, { method, headers, body });
  const echo = '{"jsonrpc":"2.0","id":1,"method":"test_echo","params":["hi"]}';
  const echoed = { jsonrpc: '2.0', id: 1, result: ['hi'] };

  it('auth: missing key → 401 `project id required in the url`', async () => {
    for (const path of ['/v3', '/v3/']) {
      const res = await post(path, echo);
      expect(res.status, path).toBe(401);
      expect(res.text).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"project id required in the url"}}');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('auth: unknown key → 401 `invalid project id`, checked before the body', async () => {
    for (const key of ['wrong', TEST_API_KEY.slice(0, -1), `${TEST_API_KEY}x`, 'k'.repeat(5000)]) {
      const res = await post(`/v3/${key}`, 'not even json', { 'content-type': 'text/plain' });
      expect(res.status).toBe(401);
      expect(res.text).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"invalid project id"}}');
    }
  });

  it('auth: every configured key works; trailing slash accepted', async () => {
    for (const path of [`/v3/${TEST_API_KEY}`, `/v3/${SECOND_KEY}`, `/v3/${TEST_API_KEY}/`]) {
      const res = await post(path, echo);
      expect(res.status, path).toBe(200);
      expect(JSON.parse(res.text)).toEqual(echoed);
    }
  });

  it('413: body over the limit, with a JSON-RPC error body', async () => {
    const atLimit = echo + ' '.repeat(64 * 1024 - echo.length);
    expect((await post(`/v3/${TEST_API_KEY}`, atLimit)).status).toBe(200);
    const res = await post(`/v3/${TEST_API_KEY}`, `${atLimit} `);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32005, message: 'content length too large' } });
  });

  it('413 also for a chunked body without Content-Length', async () => {
    const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      import('node:http').then(({ request }) => {
        const req = request(`${server.url}/v3/${TEST_API_KEY}`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (r) => {
          let text = '';
          r.on('data', (d) => (text += d));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, text }));
        });
        req.on('error', reject);
        for (let i = 0; i < 5; i++) req.write('x'.repeat(16 * 1024));
        req.end('y'.repeat(1024));
      }, reject);
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text).error.code).toBe(-32005);
  });

  it('415: content types other than JSON, and a missing one', async () => {
    const expected = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid content type, only application/json is supported"}}';
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx']) {
      const res = await post(`/v3/${TEST_API_KEY}`, echo, { 'content-type': type });
      expect(res.status, type).toBe(415);
      expect(res.text).toBe(expected);
    }
    const res = await post(`/v3/${TEST_API_KEY}`, echo, {});
    expect(res.status).toBe(415);
    expect(res.text).toBe(expected);
  });

  it('accepted content types: application/json (with charset), application/json-rpc, application/jsonrequest', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/json-rpc', 'application/jsonrequest']) {
      const res = await post(`/v3/${TEST_API_KEY}`, echo, { 'content-type': type });
      expect(res.status, type).toBe(200);
      expect(JSON.parse(res.text)).toEqual(echoed);
    }
  });

  it('405: GET, PUT, DELETE on /v3/:key', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await post(`/v3/${TEST_API_KEY}`, method === 'GET' ? '' : echo, { 'content-type': 'application/json' }, method);
      expect(res.status, method).toBe(405);
      expect(res.headers.allow).toBe('POST, OPTIONS'); // OPTIONS is the CORS preflight
      expect(JSON.parse(res.text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'method not allowed' } });
    }
  });

  it('404: unknown paths answer JSON', async () => {
    for (const path of ['/', '/v2/key', `/v3/${TEST_API_KEY}/extra`, '/favicon.ico', `/V3/${TEST_API_KEY}`]) {
      const res = await post(path, echo);
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^not found/) } });
    }
  });

  it('no HTML and no stack traces, whatever the request', async () => {
    const odd: Array<[string, string, Record<string, string>, string]> = [
      ['POST', '/v3/%zz', { 'content-type': 'application/json' }, echo],
      ['POST', `/v3/${TEST_API_KEY}`, { 'content-type': 'application/json', 'content-length': '1' }, '{}'],
      ['POST', `/v3/${TEST_API_KEY}`, { 'content-type': ';;;' }, echo],
      ['GET', '/ws/v3/', {}, ''],
      ['GET', `/ws/v3/${TEST_API_KEY}`, {}, ''],
      ['POST', `/ws/v3/${TEST_API_KEY}`, { 'content-type': 'application/json' }, echo],
    ];
    for (const [method, path, headers, body] of odd) {
      const res = await rawHttp(`${server.url}${path}`, { method, headers, body });
      expect(res.headers['content-type'], `${method} ${path}`).toMatch(/^application\/json/);
      expect(res.text).not.toMatch(/<html|\n\s+at /i);
      const parsed = JSON.parse(res.text);
      if (res.status !== 200) expect(parsed).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: expect.any(Number) } });
    }
  });

  it('GET /ws/v3/:key without upgrade → 426', async () => {
    const res = await rawHttp(`${server.url}/ws/v3/${TEST_API_KEY}`, { method: 'GET' });
    expect(res.status).toBe(426);
  });

  it('notification over HTTP: 200 with an empty body', async () => {
    const res = await post(`/v3/${TEST_API_KEY}`, '{"jsonrpc":"2.0","method":"test_record","params":["http"]}');
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
  });

  it('GET /health: 200 with the network health, 503 when not ok; no key needed', async () => {
    let res = await rawHttp(`${server.url}/health`, { method: 'GET' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ ok: true, network: 'main' });
    res = await rawHttp(`${server.url}/health`, { method: 'GET', headers: { host: 'other.localhost:8545' } });
    expect(JSON.parse(res.text)).toEqual({ ok: true, network: 'other' });
    main.healthy = false;
    try {
      res = await rawHttp(`${server.url}/health`, { method: 'GET' });
      expect(res.status).toBe(503);
      expect(JSON.parse(res.text)).toEqual({ ok: false, network: 'main' });
    } finally {
      main.healthy = true;
    }
  });

  it('Host header picks the network (case-insensitive, port ignored)', async () => {
    for (const host of ['other.localhost', 'OTHER.localhost:8545', 'other.localhost.']) {
      const client = httpClient(server.url, TEST_API_KEY, { host });
      expect((await client.call('test_echo', [])).error?.code, host).toBe(-32601);
      expect((await client.call('test_add', [1, 1])).result).toBe(2);
      await client.close();
    }
    const fallback = httpClient(server.url, TEST_API_KEY, { host: 'unknown.example:1' });
    expect((await fallback.call('test_echo', [1])).result).toEqual([1]);
    await fallback.close();
  });
});

describe('WebSocket transport', () => {
  it('upgrade with a missing key is refused with HTTP 401 before switching protocols', async () => {
    const err = await wsClient(server.url, '').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WsUpgradeError);
    expect((err as WsUpgradeError).status).toBe(401);
    expect(JSON.parse((err as WsUpgradeError).text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'project id required in the url' } });
  });

  it('upgrade with an unknown key is refused with HTTP 401', async () => {
    const err = await wsClient(server.url, 'not-a-key').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WsUpgradeError);
    expect((err as WsUpgradeError).status).toBe(401);
    expect(JSON.parse((err as WsUpgradeError).text).error).toEqual({ code: -32001, message: 'invalid project id' });
  });

  it('upgrade aimed at the HTTP path or an unknown path is refused', async () => {
    const WebSocket = (await import('ws')).default;
    for (const [path, status] of [
      [`/v3/${TEST_API_KEY}`, 405],
      ['/nowhere', 404],
    ] as const) {
      const ws = new WebSocket(`${server.url.replace('http', 'ws')}${path}`);
      const got = await new Promise<number>((resolve) => {
        ws.on('unexpected-response', (_req, res) => {
          resolve(res.statusCode ?? 0);
          ws.terminate();
        });
        ws.on('open', () => resolve(101));
        ws.on('error', () => {});
      });
      expect(got, path).toBe(status);
    }
  });

  it('a message over the size limit closes the socket with 1009; the server keeps serving', async () => {
    const client = await wsClient(server.url, TEST_API_KEY);
    client.socket.send(`{"jsonrpc":"2.0","id":1,"method":"test_echo","params":["${'x'.repeat(64 * 1024)}"]}`);
    expect((await client.closed).code).toBe(1009);
    const again = await wsClient(server.url, TEST_API_KEY);
    expect((await again.call('test_add', [1, 2])).result).toBe(3);
    await again.close();
  });

  it('a text frame with invalid UTF-8 closes the socket with 1007', async () => {
    const client = await wsClient(server.url, TEST_API_KEY);
    client.socket.send(Buffer.from([0x22, 0xff, 0x22]), { binary: false });
    expect((await client.closed).code).toBe(1007);
  });

  it('a binary frame with valid UTF-8 JSON is answered like text', async () => {
    const client = await wsClient(server.url, TEST_API_KEY);
    const reply = await client.send(Buffer.from('{"jsonrpc":"2.0","id":9,"method":"test_echo","params":[]}'));
    expect(reply.text).toBe('{"jsonrpc":"2.0","id":9,"result":[]}');
    await client.close();
  });

  it('requests on one socket run concurrently; more than the in-flight limit are all answered', async () => {
    const client = await wsClient(server.url, TEST_API_KEY);
    const order: string[] = [];
    const held = client.call('test_hold', []).then((r) => {
      order.push('held');
      return r;
    });
    await until(
      'the held call running',
      () => main.context.holds.running,
      (n) => n === 1,
    );
    // Answered while the first call on the same socket still runs.
    expect((await client.call('test_echo', ['fast'])).result).toEqual(['fast']);
    order.push('fast');
    main.context.holds.release();
    expect((await held).result).toBe(true);
    expect(order).toEqual(['fast', 'held']);
    const many = await Promise.all(Array.from({ length: 12 }, (_, i) => client.call('test_sleep', [20 + i])));
    expect(many.map((r) => r.result)).toEqual(Array.from({ length: 12 }, (_, i) => 20 + i));
    await client.close();
  });

  it('Host header picks the network', async () => {
    const client = await wsClient(server.url, TEST_API_KEY, { host: 'other.localhost' });
    expect((await client.call('test_echo', [])).error?.code).toBe(-32601);
    await client.close();
  });
});

describe('close()', () => {
  it('ends open WebSockets with 1001 and waits for in-flight HTTP requests', async () => {
    const network = toyNetwork();
    const s = await startServer({ networks: [network], apiKeys: [TEST_API_KEY], limits: LIMITS });
    const ws = await wsClient(s.url, TEST_API_KEY);
    const http = httpClient(s.url, TEST_API_KEY);
    expect((await http.call('test_add', [1, 1])).result).toBe(2); // leaves an idle keep-alive connection
    const inFlight = http.call('test_hold', []);
    await until(
      'the held call running',
      () => network.context.holds.running,
      (n) => n === 1,
    );
    // The idle keep-alive connection does not hold close() for its timeout (72 s, past the test's).
    const closing = s.close();
    expect((await ws.closed).code).toBe(1001);
    network.context.holds.release();
    await closing;
    expect((await inFlight).result).toBe(true);
    await http.close();
  });
});

describe('logging', () => {
  const SECRET = 'SeCrEtKeY-4d2f9a';
  const WRONG = 'WrOnGkEy-77b1';

  it.each([
    ['createLogger', (dest: { write(s: string): void }) => createLogger({ level: 'trace', destination: dest }), 5],
    ['a plain pino logger', (dest: { write(s: string): void }) => pino({ level: 'trace' }, dest), 5],
    // At info the HTTP fast path answers the well-formed requests (src/rpc/fastPath.ts).
    ['createLogger at info', (dest: { write(s: string): void }) => createLogger({ level: 'info', destination: dest }), 3],
  ])('the API key never appears in the log (%s); internal errors are logged with stack and request id', async (_name, make, minLines) => {
    const lines: string[] = [];
    const logger = make({ write: (s: string) => void lines.push(s) });
    const s = await startServer({ networks: [toyNetwork()], apiKeys: [SECRET], logger, limits: LIMITS });
    const http = httpClient(s.url, SECRET);
    await http.call('test_echo', [1]);
    await http.call('test_throw', []);
    await http.call('test_rpcError', []);
    await http.send('{bad json');
    await rawHttp(`${s.url}/v3/${SECRET}`, { headers: { 'content-type': 'text/plain' }, body: 'x' });
    await rawHttp(`${s.url}/v3/${SECRET}`, { headers: { 'content-type': 'application/json' }, body: 'x'.repeat(70 * 1024) });
    await rawHttp(`${s.url}/v3/${SECRET}`, { method: 'GET' });
    await rawHttp(`${s.url}/v3/${SECRET}/more`, { method: 'GET' });
    await rawHttp(`${s.url}/V3/${SECRET}`, { method: 'GET' });
    await rawHttp(`${s.url}/v3/${WRONG}`, { body: '{}', headers: { 'content-type': 'application/json' } });
    const ws = await wsClient(s.url, SECRET);
    await ws.call('test_throw', []);
    ws.socket.send('x'.repeat(65 * 1024)); // 1009
    await ws.closed;
    await wsClient(s.url, WRONG).catch(() => undefined);
    const ws2 = await wsClient(s.url, SECRET);
    await http.close();
    await s.close();
    await ws2.closed;

    const log = lines.join('');
    expect(lines.length).toBeGreaterThan(minLines);
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain(WRONG);
    const internal = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'internal error in method');
    expect(internal).toHaveLength(2);
    for (const entry of internal) {
      expect(entry.level).toBe(50);
      expect(entry.reqId).toBeTruthy();
      expect(entry.rpcMethod).toBe('test_throw');
      expect(entry.err.stack).toContain(TOY_SECRET_MESSAGE);
    }
  });
});
