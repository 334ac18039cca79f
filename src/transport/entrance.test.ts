import { generateKeyPairSync } from 'node:crypto';
import { importPKCS8, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { KeyRegistry } from '../pipeline/keys.js';
import { NodeMetrics } from '../pipeline/metrics.js';
import { createPipeline, type Session } from '../pipeline/pipeline.js';
import { RejectedByKeySettingsError } from '../rpc/errors.js';
import { createMethodTable, type NotificationChannel } from '../rpc/method.js';
import { createEntrance, type Entered, withNotifications } from './entrance.js';
import { createNetworkSelector, type NetworkHandle } from './networks.js';

const ORIGIN = 'https://app.example.com';
const AGENT = 'my-backend/1.0';
const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signingKey = await importPKCS8(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 'ES256');
const jwt = (exp = Math.floor(Date.now() / 1000) + 3600) => new SignJWT({}).setProtectedHeader({ alg: 'ES256' }).setExpirationTime(exp).sign(signingKey);
const basic = (password: string) => `Basic ${Buffer.from(`user:${password}`).toString('base64')}`;

const network = (name: string, hostnames: string[]): NetworkHandle => ({
  name,
  hostnames,
  methods: createMethodTable<unknown>([{ name: 'test_echo', call: async (_ctx, params) => params }]),
  context: undefined,
  health: async () => ({ ok: true }),
});

function setup() {
  const keys = new KeyRegistry([
    { key: 'open-key', id: 'open' },
    { key: 'secret-key', id: 'secret', secret: 's3cret' },
    { key: 'jwt-key', id: 'jwt', jwt: { keys: [{ key: pair.publicKey, algorithm: 'ES256' }] } },
    { key: 'origin-key', id: 'origin', allow: { origins: [ORIGIN] } },
    { key: 'agent-key', id: 'agent', allow: { userAgents: ['my-backend/'] } },
  ]);
  const metrics = new NodeMetrics({ heads: async () => [] });
  const pipeline = createPipeline({ keys, metrics, logger: undefined });
  const networks = [network('mainnet', []), network('other', ['other'])];
  const entrance = createEntrance({ pipeline, keys, selectNetwork: createNetworkSelector(networks) });
  const refusals = async (reason: string): Promise<number> =>
    Number(new RegExp(`^tracenode_refusals_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(await metrics.render())?.[1] ?? 0);
  return { entrance, pipeline, networks, refusals };
}

const SOCKET = { remoteAddress: '10.0.0.7' };

/** Headers carrying a key's credentials (made when the test runs: a JWT expires). */
type Credentials = () => Record<string, string> | Promise<Record<string, string>>;

/** Enters over both transports with the same key, headers and socket. */
async function overBoth(entrance: ReturnType<typeof setup>['entrance'], key: string | undefined, headers: Record<string, string>): Promise<[Entered, Entered]> {
  return [await entrance.enter('http', key, headers, SOCKET), await entrance.enter('ws', key, headers, SOCKET)];
}

function opened(entered: Entered): Session {
  if (!entered.ok) throw new Error(`refused: ${entered.error.message}`);
  return entered.session;
}

/** A session without what differs by transport (the transport, and a client-gone signal each). */
const comparable = (s: Session) => ({ ...s, transport: undefined, gone: undefined });

describe('entrance', () => {
  it.each([
    ['an open key', 'open-key', () => ({})],
    ['a key and its HTTP Basic secret', 'secret-key', () => ({ authorization: basic('s3cret') })],
    ['a key and its JWT', 'jwt-key', async () => ({ authorization: `Bearer ${await jwt()}` })],
  ])('the same headers give the same session over each transport: %s', async (_name, key, credentials: Credentials) => {
    const { entrance, networks } = setup();
    const headers = { host: 'other.localhost:8545', origin: ORIGIN, 'user-agent': AGENT, ...(await credentials()) };
    const [http, ws] = (await overBoth(entrance, key, headers)).map(opened);
    expect([http.transport, ws.transport]).toEqual(['http', 'ws']);
    expect(comparable(ws)).toEqual(comparable(http));
    expect(http).toMatchObject({
      keyId: key.replace('-key', ''),
      network: 'other',
      remoteAddress: '10.0.0.7',
      origin: ORIGIN,
      userAgent: AGENT,
      allowed: true,
    });
    expect(http.target).toBe(networks[1]);
    expect(ws.policy).toBe(http.policy);
    // Each session its own client-gone signal, not fired yet.
    expect(http.gone).not.toBe(ws.gone);
    expect([http.gone.aborted, ws.gone.aborted]).toEqual([false, false]);
  });

  it('a Host naming no network, or none, selects the first network', async () => {
    const { entrance, networks } = setup();
    for (const headers of [{ host: 'elsewhere.example:8545' }, {}] as Record<string, string>[]) {
      for (const session of (await overBoth(entrance, 'open-key', headers)).map(opened)) expect(session.target).toBe(networks[0]);
    }
  });

  it('Hosts naming different networks, interleaved, each select their own', async () => {
    const { entrance, networks } = setup();
    const order = ['other.example.net', 'mainnet.example.net', 'OTHER.example.net:443', 'other.example.net', 'elsewhere', 'other'];
    const want = [networks[1], networks[0], networks[1], networks[1], networks[0], networks[1]];
    const got = [];
    for (const host of order) got.push(opened(await entrance.enter('http', 'open-key', { host }, SOCKET)).target);
    expect(got).toEqual(want);
  });

  it.each([
    ['no key', undefined, {}, 'project id required in the url'],
    ['an empty key', '', {}, 'project id required in the url'],
    ['an unknown key', 'nope', {}, 'invalid project id'],
    ['a secret missing', 'secret-key', {}, 'invalid project id or project secret'],
    ['a wrong secret', 'secret-key', { authorization: basic('guess') }, 'invalid project id or project secret'],
    ['a JWT missing', 'jwt-key', {}, 'invalid JWT'],
    ['a JWT not signed by the key', 'jwt-key', { authorization: 'Bearer e30.e30.c2ln' }, 'invalid JWT'],
    ['an expired JWT', 'jwt-key', async () => ({ authorization: `Bearer ${await jwt(Math.floor(Date.now() / 1000) - 60)}` }), 'invalid JWT'],
  ])('%s is refused the same way over each transport, counted as auth', async (_name, key, given: Record<string, string> | Credentials, message) => {
    const { entrance, refusals } = setup();
    const headers = typeof given === 'function' ? await given() : given;
    const before = await refusals('auth');
    const both = await overBoth(entrance, key, headers);
    for (const entered of both) {
      if (entered.ok) throw new Error('entered');
      expect([entered.error.httpStatus, entered.error.toJSON()]).toEqual([401, { code: -32001, message }]);
    }
    expect((await refusals('auth')) - before).toBe(2);
  });

  it.each([
    ['an Origin the key does not list', 'origin-key', { origin: 'https://evil.example.com' }],
    ['no Origin for a key that lists some', 'origin-key', {}],
    ['a User-Agent the key does not list', 'agent-key', { 'user-agent': 'curl/8' }],
  ])('%s opens a session whose every call is refused, the same over each transport', async (_name, key, headers) => {
    const { entrance, pipeline, refusals } = setup();
    const sessions = (await overBoth(entrance, key, headers)).map(opened);
    expect(sessions.map((s) => s.allowed)).toEqual([false, false]);
    const limits = { maxBatchItems: 10, maxMethodNameLength: 64, batchResponseMaxBytes: 1_000_000 };
    const quiet = { error() {}, warn() {}, debug() {} };
    const before = await refusals('policy');
    const replies = await Promise.all(sessions.map((s) => pipeline.handle(s, '{"jsonrpc":"2.0","id":1,"method":"test_echo","params":[]}', limits, quiet)));
    expect(replies[1]).toEqual(replies[0]);
    expect(replies[0]).toEqual({
      status: 403,
      body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"rejected due to project ID settings"}}',
      retryAfter: undefined,
    });
    expect((await refusals('policy')) - before).toBe(2);
  });

  describe('CORS preflight', () => {
    it('looks the key up as entering does, without counting a missing or unknown key as a failed authentication', async () => {
      const { entrance, refusals } = setup();
      for (const [key, message] of [
        [undefined, 'project id required in the url'],
        ['nope', 'invalid project id'],
      ] as const) {
        const pass = entrance.preflight(key, ORIGIN);
        const entered = await entrance.enter('http', key, { origin: ORIGIN }, SOCKET);
        if (pass.ok || entered.ok) throw new Error('passed');
        expect(pass.error.toJSON()).toEqual({ code: -32001, message });
        expect(pass.error.toJSON()).toEqual(entered.error.toJSON());
      }
      expect(await refusals('auth')).toBe(2); // the two entries, not the preflights
    });

    it('passes a key whatever its secret or JWT (a browser sends none with a preflight), and any Origin when the key lists none', () => {
      const { entrance } = setup();
      for (const key of ['open-key', 'secret-key', 'jwt-key']) {
        const pass = entrance.preflight(key, 'https://anywhere.example');
        expect(pass.ok && pass.policy.key).toBe(key);
      }
    });

    it('refuses an Origin the key does not list (403, counted as policy), as entering decides it', async () => {
      const { entrance, refusals } = setup();
      expect(entrance.preflight('origin-key', ORIGIN).ok).toBe(true);
      for (const origin of ['https://evil.example.com', undefined]) {
        const pass = entrance.preflight('origin-key', origin);
        if (pass.ok) throw new Error('passed');
        expect(pass.error).toBeInstanceOf(RejectedByKeySettingsError);
        expect(pass.error.httpStatus).toBe(403);
        expect(opened(await entrance.enter('http', 'origin-key', origin ? { origin } : {}, SOCKET)).allowed).toBe(false);
      }
      expect(await refusals('policy')).toBe(2);
    });
  });

  it('a WebSocket session gets its notification channel, and keeps all it entered with', async () => {
    const { entrance } = setup();
    const session = opened(await entrance.enter('ws', 'origin-key', { origin: ORIGIN }, SOCKET));
    const channel: NotificationChannel = { send: () => true, onClose() {}, isOpen: () => true };
    const subscriber = withNotifications(session, channel);
    expect(subscriber).toEqual({ ...session, notifications: channel });
    expect(subscriber.gone).toBe(session.gone);
  });
});
