import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importPKCS8, SignJWT } from 'jose';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyRegistry, readKeysFile } from '../../src/pipeline/keys.js';
import { watchKeysFile } from '../../src/pipeline/keysWatcher.js';
import { createMethodTable, type MethodDefinition } from '../../src/rpc/method.js';
import { tempDir } from '../helpers/chains.js';
import { connect, rawHttp, type StartedServer, startServer, TRANSPORTS, WsUpgradeError } from '../helpers/rpcClient.js';
import { toyNetwork } from '../helpers/toyMethods.js';
import { until } from '../helpers/until.js';

/**
 * Per-key policies through the one pipeline, over HTTP and WebSocket, from one table of cases: a
 * keys file with a secret, a JWT, each allowlist kind and a combination, a rate limit, a daily
 * quota and a heavy-call cap; each case's exact status and body (HTTP) or answer (WebSocket).
 * And the keys file's hot reload.
 */

const CONTRACT = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const OTHER = '0x00000000000000000000000000000000000000aa';
const REJECTED = { code: -32002, message: 'rejected due to project ID settings' };

/** Signed transactions as a wallet sends them: to the listed contract, to another, and a creation. */
const signer = privateKeyToAccount(`0x${'42'.repeat(32)}`);
const signedTo = (to?: `0x${string}`) =>
  signer.signTransaction({ chainId: 1, type: 'eip1559', nonce: 0, to, data: to ? '0x' : '0x6000', gas: 60_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n });
const [SENT_TO_CONTRACT, SENT_TO_OTHER, SENT_CREATION] = await Promise.all([signedTo(CONTRACT), signedTo(OTHER), signedTo()]);

/**
 * Toy methods named as the policies see them: eth_call declares itself heavy, as the real one does,
 * and with `'hold'` as its second argument runs until the test releases it (`held`).
 */
const held = { running: 0, release: () => {} };
const echo = (name: string): MethodDefinition<unknown> => ({ name, call: async (_ctx, params) => params ?? null });
const methods = createMethodTable<unknown>([
  echo('test_echo'),
  echo('eth_getBalance'),
  echo('eth_blockNumber'),
  echo('trace_call'),
  echo('trace_callMany'),
  echo('trace_rawTransaction'),
  echo('eth_sendRawTransaction'),
  {
    name: 'eth_call',
    cost: 'heavy',
    async call(_ctx, params) {
      if (Array.isArray(params) && params[1] === 'hold') {
        held.running++;
        await new Promise<void>((resolve) => (held.release = resolve));
        held.running--;
      }
      return '0x';
    },
  },
]);

const tmp = tempDir('tracenode-keys-');
const keysPath = join(tmp.dir, 'keys.yaml');
const es = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pem = (k: import('node:crypto').KeyObject, type: 'spki' | 'pkcs8') => k.export({ type, format: 'pem' }) as string;
writeFileSync(join(tmp.dir, 'es.pem'), pem(es.publicKey, 'spki'));
writeFileSync(join(tmp.dir, 'rsa.pem'), pem(rsa.publicKey, 'spki'));

const KEYS_YAML = `
keys:
  - key: open-key
  - key: secret-key
    id: with-secret
    secret: s3cret
  - key: jwt-key
    jwt: { publicKeys: [./es.pem, ./rsa.pem], audience: tracenode }
  - key: origin-key
    allow: { origins: ["https://app.example.com", "*.example.org"] }
  - key: ua-key
    allow: { userAgents: ["my-backend/"] }
  - key: method-key
    allow: { methods: [test_echo, eth_getBalance] }
  - key: contract-key
    allow: { contracts: ["${CONTRACT}"] }
  - key: combo-key
    allow: { origins: ["https://app.example.com"], methods: [test_echo] }
  - key: rate-key
    rateLimit: { perSecond: 5, burst: 5 }
  - key: quota-key
    dailyQuota: 3
  - key: heavy-key
    maxConcurrentHeavy: 1
`;
writeFileSync(keysPath, KEYS_YAML);

/**
 * The clock of the rate windows and daily quotas (the server's `now`): the tests move it instead
 * of waiting for a window to pass. Noon UTC, so that no test's window crosses a day.
 */
let clock = Date.parse('2026-06-01T12:00:00Z');

let server: StartedServer;
beforeAll(async () => {
  server = await startServer({ networks: [toyNetwork({ methods })], policies: readKeysFile(keysPath), logger: false, now: () => clock });
});
afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
async function jwt(opts: { key?: 'es' | 'rsa' | 'stranger'; exp?: number; aud?: string; alg?: string } = {}): Promise<string> {
  const which = opts.key ?? 'es';
  const pair = which === 'es' ? es : which === 'rsa' ? rsa : stranger;
  const alg = opts.alg ?? (which === 'rsa' ? 'RS256' : 'ES256');
  const signing = await importPKCS8(pem(pair.privateKey, 'pkcs8'), alg);
  return new SignJWT({})
    .setProtectedHeader({ alg })
    .setAudience(opts.aud ?? 'tracenode')
    .setExpirationTime(opts.exp ?? Math.floor(Date.now() / 1000) + 600)
    .sign(signing);
}

interface Case {
  name: string;
  key: string;
  headers?: () => Promise<Record<string, string>> | Record<string, string>;
  method?: string;
  params?: unknown[];
  /** The error, or undefined for a result. */
  error?: { code: number; message: string };
  /** HTTP status (200 for an answer; for WebSocket, 401 means the upgrade is refused). */
  status: number;
}

const CASES: Case[] = [
  { name: 'open key', key: 'open-key', status: 200 },
  { name: 'secret: right', key: 'secret-key', headers: () => ({ authorization: basic('', 's3cret') }), status: 200 },
  { name: 'secret: any user name', key: 'secret-key', headers: () => ({ authorization: basic('me', 's3cret') }), status: 200 },
  { name: 'secret: missing', key: 'secret-key', status: 401, error: { code: -32001, message: 'invalid project id or project secret' } },
  {
    name: 'secret: wrong',
    key: 'secret-key',
    headers: () => ({ authorization: basic('', 's3cre') }),
    status: 401,
    error: { code: -32001, message: 'invalid project id or project secret' },
  },
  { name: 'JWT: ES256, valid', key: 'jwt-key', headers: async () => ({ authorization: `Bearer ${await jwt()}` }), status: 200 },
  { name: 'JWT: RS256, valid', key: 'jwt-key', headers: async () => ({ authorization: `Bearer ${await jwt({ key: 'rsa' })}` }), status: 200 },
  {
    name: 'JWT: expired',
    key: 'jwt-key',
    headers: async () => ({ authorization: `Bearer ${await jwt({ exp: Math.floor(Date.now() / 1000) - 60 })}` }),
    status: 401,
    error: { code: -32001, message: 'invalid JWT' },
  },
  {
    name: 'JWT: signed by another key',
    key: 'jwt-key',
    headers: async () => ({ authorization: `Bearer ${await jwt({ key: 'stranger' })}` }),
    status: 401,
    error: { code: -32001, message: 'invalid JWT' },
  },
  {
    name: 'JWT: wrong algorithm for the key (RSA key, PS256)',
    key: 'jwt-key',
    headers: async () => ({ authorization: `Bearer ${await jwt({ key: 'rsa', alg: 'PS256' })}` }),
    status: 401,
    error: { code: -32001, message: 'invalid JWT' },
  },
  {
    name: 'JWT: wrong audience',
    key: 'jwt-key',
    headers: async () => ({ authorization: `Bearer ${await jwt({ aud: 'someone-else' })}` }),
    status: 401,
    error: { code: -32001, message: 'invalid JWT' },
  },
  { name: 'JWT: missing', key: 'jwt-key', status: 401, error: { code: -32001, message: 'invalid JWT' } },
  { name: 'origin: listed', key: 'origin-key', headers: () => ({ origin: 'https://app.example.com' }), status: 200 },
  { name: 'origin: *.example.org', key: 'origin-key', headers: () => ({ origin: 'https://dapp.example.org:8443' }), status: 200 },
  {
    name: 'origin: the wildcard does not match the bare domain',
    key: 'origin-key',
    headers: () => ({ origin: 'https://example.org' }),
    status: 403,
    error: REJECTED,
  },
  { name: 'origin: another', key: 'origin-key', headers: () => ({ origin: 'https://evil.example.com' }), status: 403, error: REJECTED },
  { name: 'origin: none sent', key: 'origin-key', status: 403, error: REJECTED },
  { name: 'user agent: contains the entry', key: 'ua-key', headers: () => ({ 'user-agent': 'my-backend/1.2 (linux)' }), status: 200 },
  { name: 'user agent: another', key: 'ua-key', headers: () => ({ 'user-agent': 'curl/8.0' }), status: 403, error: REJECTED },
  { name: 'methods: listed', key: 'method-key', method: 'eth_getBalance', params: [OTHER, 'latest'], status: 200 },
  { name: 'methods: not listed', key: 'method-key', method: 'eth_blockNumber', params: [], status: 403, error: REJECTED },
  {
    name: 'contracts: the listed contract',
    key: 'contract-key',
    method: 'eth_getBalance',
    params: [CONTRACT.toUpperCase().replace('0X', '0x'), 'latest'],
    status: 200,
  },
  { name: 'contracts: eth_call to it', key: 'contract-key', method: 'eth_call', params: [{ to: CONTRACT }, 0], status: 200 },
  { name: 'contracts: another contract', key: 'contract-key', method: 'eth_getBalance', params: [OTHER, 'latest'], status: 403, error: REJECTED },
  { name: 'contracts: eth_call creating a contract', key: 'contract-key', method: 'eth_call', params: [{ data: '0x00' }, 0], status: 403, error: REJECTED },
  { name: 'contracts: a method they do not restrict', key: 'contract-key', method: 'eth_blockNumber', params: [], status: 200 },
  { name: 'contracts: trace_call to it', key: 'contract-key', method: 'trace_call', params: [{ to: CONTRACT }, ['trace']], status: 200 },
  { name: 'contracts: trace_call to another', key: 'contract-key', method: 'trace_call', params: [{ to: OTHER }, ['trace']], status: 403, error: REJECTED },
  {
    name: 'contracts: trace_callMany, every call to it',
    key: 'contract-key',
    method: 'trace_callMany',
    params: [
      [
        [{ to: CONTRACT }, ['trace']],
        [{ to: CONTRACT }, []],
      ],
    ],
    status: 200,
  },
  {
    name: 'contracts: trace_callMany with a creation',
    key: 'contract-key',
    method: 'trace_callMany',
    params: [
      [
        [{ to: CONTRACT }, ['trace']],
        [{ data: '0x00' }, []],
      ],
    ],
    status: 403,
    error: REJECTED,
  },
  {
    name: 'contracts: trace_callMany with another contract',
    key: 'contract-key',
    method: 'trace_callMany',
    params: [[[{ to: OTHER }, ['trace']]]],
    status: 403,
    error: REJECTED,
  },
  {
    name: 'contracts: trace_rawTransaction (target not visible)',
    key: 'contract-key',
    method: 'trace_rawTransaction',
    params: ['0x00', ['trace']],
    status: 403,
    error: REJECTED,
  },
  {
    name: 'contracts: eth_sendRawTransaction to it (read from the signed envelope)',
    key: 'contract-key',
    method: 'eth_sendRawTransaction',
    params: [SENT_TO_CONTRACT],
    status: 200,
  },
  {
    name: 'contracts: eth_sendRawTransaction to another',
    key: 'contract-key',
    method: 'eth_sendRawTransaction',
    params: [SENT_TO_OTHER],
    status: 403,
    error: REJECTED,
  },
  {
    name: 'contracts: eth_sendRawTransaction creating a contract',
    key: 'contract-key',
    method: 'eth_sendRawTransaction',
    params: [SENT_CREATION],
    status: 403,
    error: REJECTED,
  },
  {
    name: 'contracts: debug_traceCall to another',
    key: 'contract-key',
    method: 'debug_traceCall',
    params: [{ to: OTHER }, 'latest'],
    status: 403,
    error: REJECTED,
  },
  { name: 'combination: both pass', key: 'combo-key', headers: () => ({ origin: 'https://app.example.com' }), status: 200 },
  {
    name: 'combination: origin passes, method does not',
    key: 'combo-key',
    headers: () => ({ origin: 'https://app.example.com' }),
    method: 'eth_blockNumber',
    params: [],
    status: 403,
    error: REJECTED,
  },
  {
    name: 'combination: method passes, origin does not',
    key: 'combo-key',
    headers: () => ({ origin: 'https://other.example.com' }),
    status: 403,
    error: REJECTED,
  },
];

for (const transport of TRANSPORTS) {
  describe(`key policies [${transport}]`, () => {
    it.each(CASES)('$name', async (c) => {
      const headers = (await c.headers?.()) ?? {};
      const method = c.method ?? 'test_echo';
      const params = c.params ?? [1];
      if (transport === 'http') {
        const res = await rawHttp(`${server.url}/v3/${c.key}`, {
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        });
        expect(res.status).toBe(c.status);
        const body = JSON.parse(res.text);
        if (c.error === undefined) expect(body).toEqual({ jsonrpc: '2.0', id: 1, result: method === 'eth_call' ? '0x' : params });
        else expect(body).toEqual({ jsonrpc: '2.0', id: c.status === 401 ? null : 1, error: c.error });
        return;
      }
      const client = await connect('ws', server.url, c.key, { headers }).catch((e: unknown) => e);
      if (c.status === 401) {
        expect(client).toBeInstanceOf(WsUpgradeError);
        expect((client as WsUpgradeError).status).toBe(401);
        expect(JSON.parse((client as WsUpgradeError).text)).toEqual({ jsonrpc: '2.0', id: null, error: c.error });
        return;
      }
      const ws = client as Awaited<ReturnType<typeof connect>>;
      try {
        const answer = await ws.call(method, params);
        if (c.error === undefined) expect(answer.result).toEqual(method === 'eth_call' ? '0x' : params);
        else expect(answer.error).toEqual(c.error);
      } finally {
        await ws.close();
      }
    });

    it('rate limit: the sixth call inside the window is refused with Infura’s 429; the window refills', async () => {
      const client = await connect(transport, server.url, 'rate-key');
      try {
        clock += 1100; // a fresh window for this transport
        const answers = [];
        for (let i = 0; i < 6; i++) answers.push(await client.call('test_echo', [i]));
        expect(answers.slice(0, 5).map((a) => a.result)).toEqual([[0], [1], [2], [3], [4]]);
        const refused = answers[5].error!;
        expect(refused.code).toBe(-32005);
        expect(refused.message).toBe('project ID request rate exceeded');
        expect(refused.data).toMatchObject({ see: 'docs/operators.md#limits', allowed_rps: 5, current_rps: 6 });
        const backoff = (refused.data as { backoff_seconds: number }).backoff_seconds;
        expect(backoff).toBeGreaterThan(0);
        expect(backoff).toBeLessThanOrEqual(1);
        clock += backoff * 1000 + 50;
        expect((await client.call('test_echo', ['again'])).result).toEqual(['again']);
      } finally {
        await client.close();
      }
    });
  });
}

describe('limits over HTTP: status and headers', () => {
  it('rate limit: HTTP 429 with Retry-After; a batch counts each item', async () => {
    clock += 1100; // a fresh window
    const batch = Array.from({ length: 6 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'test_echo', params: [i] }));
    const res = await rawHttp(`${server.url}/v3/rate-key`, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
    // Five items pass and one is refused: a mixed batch is HTTP 200 with the refusal in place.
    expect(res.status).toBe(200);
    const answers = JSON.parse(res.text) as Array<{ id: number; error?: { code: number } }>;
    expect(answers.filter((a) => a.error?.code === -32005)).toHaveLength(1);
    const alone = await rawHttp(`${server.url}/v3/rate-key`, {
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":9,"method":"test_echo"}',
    });
    expect(alone.status).toBe(429);
    expect(Number(alone.headers['retry-after'])).toBe(1);
    expect(JSON.parse(alone.text).error.message).toBe('project ID request rate exceeded');
  });

  it('daily quota: the fourth call of the day is refused until midnight UTC', async () => {
    const post = (id: number) =>
      rawHttp(`${server.url}/v3/quota-key`, { headers: { 'content-type': 'application/json' }, body: `{"jsonrpc":"2.0","id":${id},"method":"test_echo"}` });
    for (let i = 1; i <= 3; i++) expect((await post(i)).status).toBe(200);
    const res = await post(4);
    expect(res.status).toBe(429);
    const error = JSON.parse(res.text).error;
    expect(error.message).toBe('daily request count exceeded, request rate limited');
    const untilMidnight = Math.ceil((Date.parse(`${new Date(clock).toISOString().slice(0, 10)}T00:00:00Z`) + 86_400_000 - clock) / 1000);
    expect(error.data.backoff_seconds).toBe(untilMidnight);
    expect(error.data).toMatchObject({ allowed_daily: 3 });
    expect(Number(res.headers['retry-after'])).toBe(untilMidnight);
  });

  it('heavy calls: a second eth_call while one runs is refused; a light call is not', async () => {
    const post = (body: object) => rawHttp(`${server.url}/v3/heavy-key`, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const slow = post({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: CONTRACT }, 'hold'] });
    await until(
      'the first eth_call running',
      () => held.running,
      (n) => n === 1,
    );
    const second = await post({ jsonrpc: '2.0', id: 2, method: 'eth_call', params: [{ to: CONTRACT }, 0] });
    const light = await post({ jsonrpc: '2.0', id: 3, method: 'test_echo', params: [1] });
    expect(second.status).toBe(429);
    expect(JSON.parse(second.text).error).toMatchObject({ code: -32005, message: 'project ID concurrent request limit exceeded' });
    expect(light.status).toBe(200);
    held.release();
    expect((await slow).status).toBe(200);
    expect((await post({ jsonrpc: '2.0', id: 4, method: 'eth_call', params: [{ to: CONTRACT }, 0] })).status).toBe(200);
  });
});

describe('keys file hot reload', () => {
  it('a key removed stops working once the file changes; a malformed or empty file changes nothing', async () => {
    const dir = tempDir('tracenode-reload-');
    const path = join(dir.dir, 'keys.yaml');
    writeFileSync(path, 'keys:\n  - key: stays\n  - key: goes\n');
    const registry = new KeyRegistry(readKeysFile(path));
    const lines: string[] = [];
    const log = {
      info: (o: object, m: string) => lines.push(`${m} ${JSON.stringify(o)}`),
      error: (o: object, m: string) => lines.push(`${m} ${JSON.stringify(o)}`),
    };
    const watcher = watchKeysFile(path, registry, log as never);
    const s = await startServer({ networks: [toyNetwork({ methods })], keys: registry, logger: false });
    const status = async (key: string) =>
      (await rawHttp(`${s.url}/v3/${key}`, { headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"test_echo"}' })).status;
    try {
      expect([await status('stays'), await status('goes')]).toEqual([200, 200]);
      writeFileSync(path, 'keys:\n  - key: stays\n');
      await until(
        'the removed key refused',
        () => status('goes'),
        (code) => code === 401,
      );
      expect(await status('stays')).toBe(200);
      writeFileSync(path, 'keys:\n  - key: stays\n    unknownField: 1\n');
      await until(
        'the malformed file refused',
        () => lines,
        (l) => l.some((x) => x.startsWith('keys file not reloaded') && x.includes('unknownField')),
      );
      expect([await status('stays'), await status('goes')]).toEqual([200, 401]);
      // Truncated (a write in progress, as `>` or writeFileSync does first): nothing changes.
      writeFileSync(path, '');
      expect(watcher.reload()).toBe(false);
      await until(
        'the empty file refused',
        () => lines,
        (l) => l.some((x) => x.startsWith('keys file not reloaded') && x.includes('the file is empty')),
      );
      expect([await status('stays'), await status('goes')]).toEqual([200, 401]);
    } finally {
      watcher.close();
      await s.close();
      dir.cleanup();
    }
  });
});
