import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallEnv } from '../../src/pipeline/pipeline.js';
import { createMethodTable } from '../../src/rpc/method.js';
import { rawHttp, type StartedServer, startServer, TEST_API_KEY, wsClient } from '../helpers/rpcClient.js';
import { toyMethods, toyNetwork } from '../helpers/toyMethods.js';

/**
 * One request path. A middleware added to the pipeline sees every JSON-RPC call, whichever
 * transport and route carried it: the HTTP fast path (literal `POST /v3/<key>`), Fastify's route
 * (percent-encoded paths, chunked bodies) and WebSocket messages, batch items one by one. And a
 * server without the fast path (Fastify alone) gives the same answers on the wire: status,
 * content headers, CORS header and body.
 */

const LIMITS = { httpMaxBodyBytes: 4096 };
const OTHER_KEY = 'other-key';

interface Started {
  server: StartedServer;
  url: string;
  /** What the test middleware saw: transport, method, key id, network. */
  seen: string[];
}

async function start(fastPath: boolean): Promise<Started> {
  const main = toyNetwork({ name: 'main' });
  const other = toyNetwork({ name: 'other', hostnames: ['other.localhost'], methods: createMethodTable([toyMethods.get('test_add')!]) });
  const server = await startServer({ networks: [main, other], apiKeys: [TEST_API_KEY, OTHER_KEY], limits: LIMITS, fastPath, logger: false });
  const started: Started = { server, url: server.url, seen: [] };
  server.server.pipeline.use(async (env: CallEnv, next) => {
    started.seen.push(`${env.session.transport} ${env.call.method} ${env.session.keyId} ${env.session.network}`);
    return next();
  });
  return started;
}

let fast: Started;
let plain: Started;
beforeAll(async () => {
  [fast, plain] = await Promise.all([start(true), start(false)]);
});
afterAll(async () => {
  await Promise.all([fast?.server.close(), plain?.server.close()]);
});

interface Case {
  name: string;
  path?: string;
  headers?: Record<string, string>;
  body: string | Uint8Array;
  /** The calls the middleware sees (`transport method`), in order; none for refused requests. */
  calls: string[];
  /** The answer, checked on both servers. */
  status: number;
  text?: string;
}

const json = { 'content-type': 'application/json' };
const key = `/v3/${TEST_API_KEY}`;

const CASES: Case[] = [
  {
    name: 'a call',
    body: '{"jsonrpc":"2.0","id":1,"method":"test_echo","params":[1,"two"]}',
    calls: ['test_echo'],
    status: 200,
    text: '{"jsonrpc":"2.0","id":1,"result":[1,"two"]}',
  },
  {
    name: 'an id past 2^53, echoed as sent',
    body: '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"test_echo"}',
    calls: ['test_echo'],
    status: 200,
    text: '{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":null}',
  },
  {
    name: 'a batch with a notification',
    body: '[{"jsonrpc":"2.0","id":1,"method":"test_add","params":[1,2]},{"jsonrpc":"2.0","method":"test_echo"},{"jsonrpc":"2.0","id":"x","method":"nope"}]',
    calls: ['test_add', 'test_echo', 'nope'],
    status: 200,
    text: '[{"jsonrpc":"2.0","id":1,"result":3},{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"the method nope does not exist/is not available"}}]',
  },
  { name: 'a notification only: empty 200', body: '{"jsonrpc":"2.0","method":"test_echo"}', calls: ['test_echo'], status: 200, text: '' },
  { name: 'bad JSON', body: '{"jsonrpc":', calls: [], status: 200, text: '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}' },
  {
    name: 'invalid UTF-8',
    body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]),
    calls: [],
    status: 200,
    text: '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: body is not valid UTF-8"}}',
  },
  {
    name: 'a leading BOM',
    body: '\ufeff{"jsonrpc":"2.0","id":2,"method":"test_echo"}',
    calls: ['test_echo'],
    status: 200,
    text: '{"jsonrpc":"2.0","id":2,"result":null}',
  },
  {
    name: 'an internal error',
    body: '{"jsonrpc":"2.0","id":3,"method":"test_throw"}',
    calls: ['test_throw'],
    status: 200,
    text: '{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"internal error"}}',
  },
  { name: 'an empty body', body: '', calls: [], status: 200, text: '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}' },
  {
    name: 'a trailing slash and a query',
    path: `${key}/?x=1`,
    body: '{"jsonrpc":"2.0","id":4,"method":"test_echo"}',
    calls: ['test_echo'],
    status: 200,
    text: '{"jsonrpc":"2.0","id":4,"result":null}',
  },
  {
    name: 'the other key',
    path: `/v3/${OTHER_KEY}`,
    body: '{"jsonrpc":"2.0","id":5,"method":"test_echo"}',
    calls: ['test_echo'],
    status: 200,
    text: '{"jsonrpc":"2.0","id":5,"result":null}',
  },
  {
    name: 'media type with parameters and case',
    headers: { 'content-type': 'Application/JSON; charset=utf-8' },
    body: '{"jsonrpc":"2.0","id":6,"method":"test_echo"}',
    calls: ['test_echo'],
    status: 200,
    text: '{"jsonrpc":"2.0","id":6,"result":null}',
  },
  {
    name: 'the Host names the other network',
    headers: { ...json, host: 'other.localhost' },
    body: '{"jsonrpc":"2.0","id":7,"method":"test_echo"}',
    calls: ['test_echo'],
    status: 200,
    text: '{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"the method test_echo does not exist/is not available"}}',
  },
  // Left to Fastify on both servers.
  {
    name: 'an unknown key',
    path: '/v3/nope',
    body: '{}',
    calls: [],
    status: 401,
    text: '{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"invalid project id"}}',
  },
  { name: 'a key prefix', path: `/v3/${TEST_API_KEY.slice(0, -1)}`, body: '{}', calls: [], status: 401 },
  { name: 'a key with a character more', path: `/v3/${TEST_API_KEY}x`, body: '{}', calls: [], status: 401 },
  { name: 'a key with a NUL more (keys are compared zero-padded)', path: `/v3/${TEST_API_KEY}%00`, body: '{}', calls: [], status: 401 },
  { name: 'a key longer than the compared width', path: `/v3/${'k'.repeat(300)}`, body: '{}', calls: [], status: 401 },
  {
    name: 'an encoded key',
    path: `/v3/${TEST_API_KEY.replace('-', '%2D')}`,
    body: '{"jsonrpc":"2.0","id":8,"method":"test_echo"}',
    calls: ['test_echo'],
    status: 200,
    text: '{"jsonrpc":"2.0","id":8,"result":null}',
  },
  { name: 'a wrong path', path: `/V3/${TEST_API_KEY}`, body: '{}', calls: [], status: 404 },
  { name: 'a text body', headers: { 'content-type': 'text/plain' }, body: '{}', calls: [], status: 415 },
  { name: 'no content type', headers: {}, body: '{}', calls: [], status: 415 },
  { name: 'a body over the limit', body: `"${'x'.repeat(5000)}"`, calls: [], status: 413 },
];

describe('one request path', () => {
  it.each(CASES)('$name: the middleware sees its calls, and the answer is the same with and without the fast path', async (c) => {
    const send = async (s: Started) => {
      s.seen.length = 0;
      const reply = await rawHttp(`${s.url}${c.path ?? key}`, { headers: c.headers ?? json, body: c.body });
      return { reply, seen: [...s.seen] };
    };
    const [a, b] = [await send(fast), await send(plain)];
    expect(a.reply.status).toBe(c.status);
    if (c.text !== undefined) expect(a.reply.text).toBe(c.text);
    expect({ status: b.reply.status, text: b.reply.text }).toEqual({ status: a.reply.status, text: a.reply.text });
    for (const h of ['content-type', 'content-length', 'connection', 'access-control-allow-origin'] as const) {
      expect([h, a.reply.headers[h]]).toEqual([h, b.reply.headers[h]]);
    }
    expect(a.reply.headers['access-control-allow-origin']).toBe('*');
    expect(a.seen.map((x) => x.split(' ')[1])).toEqual(c.calls);
    expect(b.seen).toEqual(a.seen);
    for (const line of a.seen) expect(line.startsWith(`http `)).toBe(true);
  });

  it('WebSocket messages pass the same middleware, batch items one by one', async () => {
    fast.seen.length = 0;
    const ws = await wsClient(fast.url, TEST_API_KEY);
    try {
      expect((await ws.call('test_add', [2, 2])).result).toBe(4);
      const batch = await ws.batch([{ method: 'test_echo', params: [1] }, { method: 'nope' }]);
      expect(batch.map((r) => r.id)).toEqual([2, 3]);
    } finally {
      await ws.close();
    }
    expect(fast.seen).toEqual(['ws test_add', 'ws test_echo', 'ws nope'].map((x) => `${x} ${fast.seen[0].split(' ')[2]} main`));
  });

  it('a chunked body (no Content-Length) goes through Fastify’s route and the same middleware', async () => {
    const chunked = (s: Started) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = httpRequest(`${s.url}${key}`, { method: 'POST', headers: json, agent: false }, (res) => {
          const parts: Buffer[] = [];
          res.on('data', (p: Buffer) => parts.push(p));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString() }));
        });
        req.on('error', reject);
        req.write('{"jsonrpc":"2.0","id":9,');
        req.end('"method":"test_add","params":[2,3]}');
      });
    fast.seen.length = 0;
    const [a, b] = [await chunked(fast), await chunked(plain)];
    expect(a).toEqual({ status: 200, text: '{"jsonrpc":"2.0","id":9,"result":5}' });
    expect(b).toEqual(a);
    expect(fast.seen.map((x) => x.split(' ').slice(0, 2).join(' '))).toEqual(['http test_add']);
  });
});
