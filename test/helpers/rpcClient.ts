/**
 * Test clients for the JSON-RPC server, one interface over two transports (HTTP POST and
 * WebSocket), so that a test body is written once and runs over both, as reth's RPC tests do.
 *
 * @example
 * ```ts
 * let server: StartedServer;
 * beforeAll(async () => { server = await startServer({ networks: [net], apiKeys: [TEST_API_KEY] }); });
 * afterAll(() => server.close());
 *
 * forEachTransport('eth_blockNumber', () => server, (rpc) => {
 *   it('default', async () => {
 *     const res = await rpc().call('eth_blockNumber', []);
 *     expect(res).toEqual({ jsonrpc: '2.0', id: res.id, result: '0x2' });
 *   });
 * });
 * ```
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe } from 'vitest';
import WebSocket from 'ws';
import { type Config, defaultConfig } from '../../src/config/settings.js';
import type { KeyPolicy } from '../../src/pipeline/keys.js';
import { KeyRegistry, openKeys } from '../../src/pipeline/keys.js';
import { buildServer, type ServerOptions, type TracenodeServer } from '../../src/transport/server.js';

/** An API key for tests; pass it in `apiKeys` and to the clients. */
export const TEST_API_KEY = 'test-key-0123456789';

/** The two transports every end-to-end test runs over. */
export const TRANSPORTS = ['http', 'ws'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** A JSON-RPC 2.0 error object. */
export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A parsed JSON-RPC 2.0 response (numeric ids lose precision past 2^53: use `send` for those). */
export interface JsonRpcResponse<T = unknown> {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: T;
  error?: JsonRpcError;
}

/** What came back for one raw message. */
export interface RawReply {
  /** HTTP status; `undefined` over WebSocket. */
  status: number | undefined;
  /** The response body / frame exactly as sent; `''` when nothing was sent back. */
  text: string;
  /** `text` parsed as JSON; `undefined` when empty or not JSON. */
  body: unknown;
}

/** One call of a batch; `notification: true` sends it without an id. */
export interface BatchCall {
  method: string;
  params?: unknown;
  notification?: boolean;
}

/** Options shared by both clients. */
export interface ClientOptions {
  /** Host header to send (network selection); default the URL's. */
  host?: string;
  /** How long to wait for a reply before failing the test; default 5000 ms. */
  timeoutMs?: number;
  /** More request headers (HTTP requests; the WebSocket upgrade): Authorization, Origin, User-Agent. */
  headers?: Record<string, string>;
}

/** A JSON-RPC client bound to one server URL and API key. Ids are numbers counting from 1. */
export interface RpcClient {
  readonly transport: Transport;
  /** Sends `{jsonrpc, id, method, params}` and resolves with the parsed response. `params` is omitted when `undefined`. */
  call<T = unknown>(method: string, params?: unknown): Promise<JsonRpcResponse<T>>;
  /** Sends the calls as one batch and resolves with the response array, in the server's order. */
  batch(calls: readonly BatchCall[]): Promise<JsonRpcResponse[]>;
  /** Sends a notification (no id). Over HTTP it waits for the (empty) reply; over WS only for the write. */
  notify(method: string, params?: unknown): Promise<void>;
  /**
   * Sends a raw message: a string or bytes as is (bytes go as a binary frame over WS), anything
   * else through `JSON.stringify`. Resolves with the reply. With `noReply`, waits `quietMs`
   * (default 100 ms over WS) and resolves with `text: ''` unless something arrived.
   * Over WS, `send` replies are matched in arrival order: await one `send` before the next.
   */
  send(body: string | Uint8Array | object, opts?: { noReply?: boolean; quietMs?: number }): Promise<RawReply>;
  /** Closes the connection (WS) or the keep-alive pool (HTTP). */
  close(): Promise<void>;
}

/** The WebSocket client, with its socket for frame-level tests. */
export interface WsRpcClient extends RpcClient {
  readonly socket: WebSocket;
  /** Resolves when the socket closes, with the close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Subscription notifications received (never taken as the reply to a call or `send`), in order. */
  readonly notifications: unknown[];
}

/** Thrown by {@link wsClient} when the server answers the upgrade with an HTTP status (e.g. 401). */
export class WsUpgradeError extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
  ) {
    super(`websocket upgrade refused: HTTP ${status} ${text}`);
  }
}

/** A server started by {@link startServer}: base URL (`http://127.0.0.1:<port>`) and first key. */
export interface StartedServer {
  url: string;
  key: string;
  app: FastifyInstance;
  server: TracenodeServer;
  close(): Promise<void>;
}

/** What tests pass to {@link startServer}: plain keys or policies, and transport settings to change. */
export interface TestServerOptions extends Omit<ServerOptions, 'keys' | 'config'> {
  /** A registry to serve (the hot-reload test updates it); else one built from `policies` or `apiKeys`. */
  keys?: KeyRegistry;
  apiKeys?: readonly string[];
  policies?: readonly KeyPolicy[];
  /** Transport settings that differ from the defaults (tests use small values). */
  limits?: Partial<Config['transport']>;
  config?: Config;
}

/** Builds the real server and listens on 127.0.0.1, port 0 (a free port). */
export async function startServer(opts: TestServerOptions): Promise<StartedServer> {
  const policies = opts.policies ?? openKeys(opts.apiKeys ?? [TEST_API_KEY]);
  const base = opts.config ?? defaultConfig();
  const config: Config = { ...base, transport: { ...base.transport, ...opts.limits } };
  const server = await buildServer({ ...opts, keys: opts.keys ?? new KeyRegistry(policies), config });
  const app = server.app;
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, key: opts.keys ? '' : policies[0].key, app, server, close: async () => void (await server.shutdown()) };
}

/**
 * Declares `describe(name [http])` and `describe(name [ws])`, each with a client connected in
 * `beforeAll` and closed in `afterAll`, and runs `fn` inside both. Use `client()` inside tests.
 * `target` is read lazily, so it may return a server started in an outer `beforeAll`.
 */
export function forEachTransport(
  name: string,
  target: () => { url: string; key: string },
  fn: (client: () => RpcClient, transport: Transport) => void,
  transports: readonly Transport[] = TRANSPORTS,
): void {
  for (const transport of transports) {
    describe(`${name} [${transport}]`, () => {
      let client: RpcClient | undefined;
      beforeAll(async () => {
        const t = target();
        client = await connect(transport, t.url, t.key);
      });
      afterAll(async () => {
        await client?.close();
      });
      fn(() => {
        if (client === undefined) throw new Error('client used before beforeAll connected it');
        return client;
      }, transport);
    });
  }
}

/** Connects a client of the given transport. */
export async function connect(transport: Transport, baseUrl: string, key: string, opts: ClientOptions = {}): Promise<RpcClient> {
  return transport === 'http' ? httpClient(baseUrl, key, opts) : wsClient(baseUrl, key, opts);
}

/**
 * Sends one HTTP request with full control of method and headers (fetch forbids `Host`). Without
 * `agent`, each request uses its own connection.
 */
export function rawHttp(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array; agent?: Agent } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...opts.headers };
    // Node sends no Content-Length for a DELETE/GET body on its own; without it the body would be
    // read as the next request.
    if (opts.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) {
      headers['content-length'] = Buffer.byteLength(opts.body);
    }
    const req = httpRequest(url, { method: opts.method ?? 'POST', headers, agent: opts.agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A client that POSTs each message to `<baseUrl>/v3/<key>` with `Content-Type: application/json`. */
export function httpClient(baseUrl: string, key: string, opts: ClientOptions = {}): RpcClient {
  const url = `${baseUrl}/v3/${key}`;
  const agent = new Agent({ keepAlive: true });
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  if (opts.host !== undefined) headers.host = opts.host;
  let nextId = 1;

  const send = async (body: string | Uint8Array | object): Promise<RawReply> => {
    const res = await rawHttp(url, { headers, body: encode(body), agent });
    return { status: res.status, text: res.text, body: parseOrUndefined(res.text) };
  };
  const expectJson = (reply: RawReply, what: string): unknown => {
    if (reply.body === undefined) throw new Error(`${what}: HTTP ${reply.status}, body is not JSON: ${JSON.stringify(reply.text)}`);
    return reply.body;
  };

  return {
    transport: 'http',
    async call<T>(method: string, params?: unknown) {
      return expectJson(await send(request(nextId++, method, params)), method) as JsonRpcResponse<T>;
    },
    async batch(calls) {
      const body = calls.map((c) => request(c.notification ? undefined : nextId++, c.method, c.params));
      return expectJson(await send(body), 'batch') as JsonRpcResponse[];
    },
    async notify(method, params) {
      const reply = await send(request(undefined, method, params));
      if (reply.text !== '') throw new Error(`notification ${method} got a reply: ${reply.text}`);
    },
    send,
    async close() {
      agent.destroy();
    },
  };
}

/** A client on `ws://…/ws/v3/<key>`; resolves once the socket is open. */
export async function wsClient(baseUrl: string, key: string, opts: ClientOptions = {}): Promise<WsRpcClient> {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws/v3/${key}`, {
    headers: { ...opts.headers, ...(opts.host !== undefined ? { host: opts.host } : {}) },
  });
  socket.on('error', () => {}); // surfaced through `open` (below) or `closed`
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString('utf8')));
      res.on('end', () => {
        reject(new WsUpgradeError(res.statusCode ?? 0, text));
        socket.terminate();
      });
    });
    socket.once('error', reject);
  });

  // Replies to call/batch are matched by id; notifications are kept apart; everything else goes,
  // in order, to `send` waiters.
  const pending = new Map<string, (text: string, body: unknown) => void>();
  const unmatched: string[] = [];
  const rawWaiters: Array<(text: string) => void> = [];
  const notifications: unknown[] = [];
  socket.on('message', (data: WebSocket.RawData) => {
    const text = Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
    const body = parseOrUndefined(text);
    if (isNotification(body)) return void notifications.push(body);
    const resolver = pending.get(matchKey(body, pending) ?? '');
    if (resolver !== undefined) return resolver(text, body);
    const waiter = rawWaiters.shift();
    if (waiter !== undefined) waiter(text);
    else unmatched.push(text);
  });

  const waitFor = <R>(what: string, register: (done: (value: R) => void) => () => void): Promise<R> =>
    new Promise<R>((resolve, reject) => {
      const unregister = register((value) => {
        clearTimeout(timer);
        unregister();
        resolve(value);
      });
      const timer = setTimeout(() => {
        unregister();
        reject(new Error(`no websocket reply to ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      void closed.then(({ code }) => {
        clearTimeout(timer);
        unregister();
        reject(new Error(`websocket closed (code ${code}) while waiting for a reply to ${what}`));
      });
    });
  const write = (data: string | Uint8Array) => new Promise<void>((resolve, reject) => socket.send(data, (err) => (err ? reject(err) : resolve())));
  const byIds = <R>(what: string, ids: number[], data: string): Promise<R> => {
    const result = waitFor<R>(what, (done) => {
      const keys = ids.map(String);
      for (const k of keys) pending.set(k, (_text, body) => done(body as R));
      return () => {
        for (const k of keys) pending.delete(k);
      };
    });
    void write(data).catch(() => {});
    return result;
  };
  let nextId = 1;

  const client: WsRpcClient = {
    transport: 'ws',
    socket,
    closed,
    notifications,
    call<T>(method: string, params?: unknown) {
      const id = nextId++;
      return byIds<JsonRpcResponse<T>>(method, [id], JSON.stringify(request(id, method, params)));
    },
    batch(calls) {
      const ids: number[] = [];
      const body = calls.map((c) => {
        const id = c.notification ? undefined : nextId++;
        if (id !== undefined) ids.push(id);
        return request(id, c.method, c.params);
      });
      return byIds<JsonRpcResponse[]>('batch', ids, JSON.stringify(body));
    },
    async notify(method, params) {
      await write(JSON.stringify(request(undefined, method, params)));
    },
    async send(body, sendOpts = {}) {
      await write(typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body));
      if (sendOpts.noReply) {
        await sleep(sendOpts.quietMs ?? 100);
        const text = unmatched.shift() ?? '';
        return { status: undefined, text, body: parseOrUndefined(text) };
      }
      const queued = unmatched.shift();
      const text =
        queued ??
        (await waitFor<string>('a raw message', (done) => {
          rawWaiters.push(done);
          return () => {
            const i = rawWaiters.indexOf(done);
            if (i >= 0) rawWaiters.splice(i, 1);
          };
        }));
      return { status: undefined, text, body: parseOrUndefined(text) };
    },
    async close() {
      if (socket.readyState !== WebSocket.CLOSED) socket.close();
      await closed;
    },
  };
  return client;
}

function request(id: number | undefined, method: string, params: unknown): Record<string, unknown> {
  const req: Record<string, unknown> = { jsonrpc: '2.0' };
  if (id !== undefined) req.id = id;
  req.method = method;
  if (params !== undefined) req.params = params;
  return req;
}

function encode(body: string | Uint8Array | object): string | Uint8Array {
  return typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
}

/** A server-sent notification (a subscription's): a request object without an id. */
function isNotification(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && 'method' in body && !('id' in body);
}

function parseOrUndefined(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The pending key a reply belongs to: its id, or for a batch the first id that is pending. */
function matchKey(body: unknown, pending: Map<string, unknown>): string | undefined {
  const idOf = (r: unknown) =>
    typeof r === 'object' && r !== null && 'id' in r && (r as { id: unknown }).id !== null ? JSON.stringify((r as { id: unknown }).id) : undefined;
  if (Array.isArray(body)) return body.map(idOf).find((k) => k !== undefined && pending.has(k));
  return idOf(body);
}
