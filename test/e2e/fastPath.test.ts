import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMethodTable } from '../../src/rpc/method.js';
import { buildServer } from '../../src/rpc/server.js';
import { rawHttp, TEST_API_KEY } from '../helpers/rpcClient.js';
import { toyMethods, toyNetwork } from '../helpers/toyMethods.js';

/**
 * The HTTP fast path (src/rpc/fastPath.ts) answers well-formed RPC POSTs before Fastify's router.
 * The same requests sent to a server built with `fastPath: false` (Fastify alone) must get the
 * same answer on the wire: status, content headers and body. A hook counts what reaches Fastify,
 * to show which server took which path.
 */

const LIMITS = { httpMaxBodyBytes: 4096 };
const OTHER_KEY = 'other-key';

interface Started {
  app: FastifyInstance;
  url: string;
  fastifyRequests: number;
}

async function start(fastPath: boolean): Promise<Started> {
  const main = toyNetwork({ name: 'main' });
  const other = toyNetwork({ name: 'other', hostnames: ['other.localhost'], methods: createMethodTable([toyMethods.get('test_add')!]) });
  const app = await buildServer({ networks: [main, other], apiKeys: [TEST_API_KEY, OTHER_KEY], limits: LIMITS, fastPath });
  const started: Started = { app, url: '', fastifyRequests: 0 };
  app.addHook('onRequest', (_req, _reply, done) => {
    started.fastifyRequests++;
    done();
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  started.url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return started;
}

let fast: Started;
let plain: Started;
beforeAll(async () => {
  [fast, plain] = await Promise.all([start(true), start(false)]);
});
afterAll(async () => {
  await Promise.all([fast?.app.close(), plain?.app.close()]);
});

interface Case {
  name: string;
  path?: string;
  headers?: Record<string, string>;
  body: string | Uint8Array;
  /** Whether the fast path takes it (else Fastify answers on both servers). */
  taken: boolean;
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
    taken: true,
    status: 200,
    text: '{"jsonrpc":"2.0","id":1,"result":[1,"two"]}',
  },
  {
    name: 'an id past 2^53, echoed as sent',
    body: '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"test_echo"}',
    taken: true,
    status: 200,
    text: '{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":null}',
  },
  {
    name: 'a batch with a notification',
    body: '[{"jsonrpc":"2.0","id":1,"method":"test_add","params":[1,2]},{"jsonrpc":"2.0","method":"test_echo"},{"jsonrpc":"2.0","id":"x","method":"nope"}]',
    taken: true,
    status: 200,
    text: '[{"jsonrpc":"2.0","id":1,"result":3},{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"the method nope does not exist/is not available"}}]',
  },
  { name: 'a notification only: empty 200', body: '{"jsonrpc":"2.0","method":"test_echo"}', taken: true, status: 200, text: '' },
  { name: 'bad JSON', body: '{"jsonrpc":', taken: true, status: 200, text: '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}' },
  {
    name: 'invalid UTF-8',
    body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]),
    taken: true,
    status: 200,
    text: '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: body is not valid UTF-8"}}',
  },
  {
    name: 'a leading BOM',
    body: '\ufeff{"jsonrpc":"2.0","id":2,"method":"test_echo"}',
    taken: true,
    status: 200,
    text: '{"jsonrpc":"2.0","id":2,"result":null}',
  },
  {
    name: 'an internal error',
    body: '{"jsonrpc":"2.0","id":3,"method":"test_throw"}',
    taken: true,
    status: 200,
    text: '{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"internal error"}}',
  },
  { name: 'an empty body', body: '', taken: true, status: 200, text: '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}' },
  {
    name: 'a trailing slash and a query',
    path: `${key}/?x=1`,
    body: '{"jsonrpc":"2.0","id":4,"method":"test_echo"}',
    taken: true,
    status: 200,
    text: '{"jsonrpc":"2.0","id":4,"result":null}',
  },
  {
    name: 'the other key',
    path: `/v3/${OTHER_KEY}`,
    body: '{"jsonrpc":"2.0","id":5,"method":"test_echo"}',
    taken: true,
    status: 200,
    text: '{"jsonrpc":"2.0","id":5,"result":null}',
  },
  {
    name: 'media type with parameters and case',
    headers: { 'content-type': 'Application/JSON; charset=utf-8' },
    body: '{"jsonrpc":"2.0","id":6,"method":"test_echo"}',
    taken: true,
    status: 200,
    text: '{"jsonrpc":"2.0","id":6,"result":null}',
  },
  {
    name: 'the Host names the other network',
    headers: { ...json, host: 'other.localhost' },
    body: '{"jsonrpc":"2.0","id":7,"method":"test_echo"}',
    taken: true,
    status: 200,
    text: '{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"the method test_echo does not exist/is not available"}}',
  },
  // Left to Fastify on both servers.
  {
    name: 'an unknown key',
    path: '/v3/nope',
    body: '{}',
    taken: false,
    status: 401,
    text: '{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"invalid project id"}}',
  },
  { name: 'a key prefix', path: `/v3/${TEST_API_KEY.slice(0, -1)}`, body: '{}', taken: false, status: 401 },
  { name: 'a key with a character more', path: `/v3/${TEST_API_KEY}x`, body: '{}', taken: false, status: 401 },
  { name: 'a key with a NUL more (keys are compared zero-padded)', path: `/v3/${TEST_API_KEY}%00`, body: '{}', taken: false, status: 401 },
  { name: 'a key longer than the compared width', path: `/v3/${'k'.repeat(300)}`, body: '{}', taken: false, status: 401 },
  {
    name: 'an encoded key',
    path: `/v3/${TEST_API_KEY.replace('-', '%2D')}`,
    body: '{"jsonrpc":"2.0","id":8,"method":"test_echo"}',
    taken: false,
    status: 200,
    text: '{"jsonrpc":"2.0","id":8,"result":null}',
  },
  { name: 'a wrong path', path: `/V3/${TEST_API_KEY}`, body: '{}', taken: false, status: 404 },
  { name: 'a text body', headers: { 'content-type': 'text/plain' }, body: '{}', taken: false, status: 415 },
  { name: 'no content type', headers: {}, body: '{}', taken: false, status: 415 },
  { name: 'a body over the limit', body: `"${'x'.repeat(5000)}"`, taken: false, status: 413 },
];

describe('HTTP fast path', () => {
  it.each(CASES)('$name: same answer with and without it', async (c) => {
    const before = { fast: fast.fastifyRequests, plain: plain.fastifyRequests };
    const send = (s: Started) => rawHttp(`${s.url}${c.path ?? key}`, { headers: c.headers ?? json, body: c.body });
    const [a, b] = [await send(fast), await send(plain)];
    expect(a.status).toBe(c.status);
    if (c.text !== undefined) expect(a.text).toBe(c.text);
    expect({ status: b.status, text: b.text }).toEqual({ status: a.status, text: a.text });
    for (const h of ['content-type', 'content-length', 'connection'] as const) expect([h, a.headers[h]]).toEqual([h, b.headers[h]]);
    expect(plain.fastifyRequests - before.plain).toBe(1);
    expect(fast.fastifyRequests - before.fast).toBe(c.taken ? 0 : 1);
  });

  it('a chunked body (no Content-Length) is left to Fastify and answered the same', async () => {
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
    const before = fast.fastifyRequests;
    const [a, b] = [await chunked(fast), await chunked(plain)];
    expect(a).toEqual({ status: 200, text: '{"jsonrpc":"2.0","id":9,"result":5}' });
    expect(b).toEqual(a);
    expect(fast.fastifyRequests - before).toBe(1);
  });
});
