import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { RawData, WebSocket } from 'ws';
import { DEFAULT_TRANSPORT_LIMITS, type TransportLimits } from '../config/limits.js';
import { createLogger, redactUrl } from '../log/logger.js';
import { type DispatchLimits, dispatch } from './dispatch.js';
import { InternalError, InvalidRequestError, LimitExceededError, ResourceNotFoundError, RpcError } from './errors.js';
import { createFastPath } from './fastPath.js';
import type { MethodTable } from './method.js';

export type { TransportLimits } from '../config/limits.js';

/**
 * One network the server hosts (one datadir): its methods and the context they run with.
 * The Host header picks the network, as hosted providers do (`mainnet.localhost`, …).
 */
export interface NetworkHandle {
  name: string; // e.g. 'mainnet'
  hostnames: readonly string[]; // Host names routed here (case-insensitive, port ignored; a dot-less name matches the first label); may be empty
  methods: MethodTable<unknown>;
  context: unknown; // passed as ctx to MethodDefinition.call
  health(): Promise<{ ok: boolean } & Record<string, unknown>>;
}

/** Options of {@link buildServer}. */
export interface ServerOptions {
  networks: readonly NetworkHandle[]; // networks[0] is the default, used when the Host matches no other
  apiKeys: readonly string[]; // at least one
  logger?: Logger | boolean;
  limits?: Partial<TransportLimits>; // override the constants (tests use small values)
  fastPath?: boolean; // answer well-formed RPC POSTs before Fastify's router (default true; see fastPath.ts)
}

/** Media types geth accepts for a JSON-RPC POST (parameters such as `charset` are ignored). */
const ACCEPTED_CONTENT_TYPES = ['application/json', 'application/json-rpc', 'application/jsonrequest'];

/** Keys are compared over at least this many characters (see createKeyChecker); `serve` allows 128. */
const KEY_COMPARE_WIDTH = 128;

/** Fastify's default keep-alive timeout, which its own server factory sets (72 s). */
const FASTIFY_KEEP_ALIVE_TIMEOUT_MS = 72_000;

/** WebSocket close code sent to every open socket by `app.close()` (RFC 6455: "going away"). */
const WS_CLOSE_GOING_AWAY = 1001;

/**
 * Builds the JSON-RPC server without listening; the CLI calls `listen`, tests bind 127.0.0.1:0.
 *
 * Routes:
 * - `POST /v3/:apiKey` (trailing slash allowed): JSON-RPC over HTTP. Other methods → 405.
 * - `GET /ws/v3/:apiKey`: WebSocket; each text (or UTF-8 binary) message is one JSON-RPC body,
 *   answered on the same socket. A plain GET without upgrade → 426.
 * - `/v3`, `/ws/v3` (no key) → 401 `project id required in the url`; unknown key → 401
 *   `invalid project id`. The key is checked in `onRequest`, before the body is read or a
 *   WebSocket upgrade happens.
 * - `GET /health` (no key): the Host's network `health()`, 200 when ok, else 503.
 * - anything else → 404 with a JSON-RPC error body.
 *
 * JSON-RPC-level errors travel with HTTP 200 (geth). Transport failures use HTTP statuses with a
 * JSON-RPC error body: 401 auth, 405 method, 413 body size (`-32005`), 415 content type, 404 path.
 * `app.close()` sends close code 1001 to open WebSockets and waits for in-flight HTTP requests.
 */
export async function buildServer(opts: ServerOptions): Promise<FastifyInstance> {
  if (opts.networks.length === 0) throw new Error('buildServer: at least one network is required');
  if (opts.apiKeys.length === 0) throw new Error('buildServer: at least one API key is required');
  if (opts.apiKeys.some((k) => typeof k !== 'string' || k.length === 0)) throw new Error('buildServer: API keys must be non-empty strings');
  const limits: TransportLimits = { ...DEFAULT_TRANSPORT_LIMITS };
  for (const [name, value] of Object.entries(opts.limits ?? {}) as Array<[keyof TransportLimits, number | undefined]>) {
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`buildServer: limit ${name} must be a positive integer`);
    limits[name] = value;
  }
  const selectNetwork = createNetworkSelector(opts.networks);
  const isKnownKey = createKeyChecker(opts.apiKeys);
  const longestKey = Math.max(...opts.apiKeys.map((k) => k.length));

  const httpLimits: DispatchLimits = {
    maxBatchItems: limits.httpMaxBatchItems,
    maxMethodNameLength: limits.maxMethodNameLength,
    batchResponseMaxBytes: limits.batchResponseMaxBytes,
  };
  const wsLimits: DispatchLimits = { ...httpLimits, maxBatchItems: limits.wsMaxBatchItems };

  const logger = opts.logger === true ? createLogger() : opts.logger || undefined;
  let requestCount = 0;
  const nextRequestId = () => `req-${(requestCount++).toString(36)}`;
  // Set once the routes below exist; requests it does not take go to Fastify's handler.
  let fastPath: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  const app = Fastify({
    loggerInstance: logger,
    genReqId: nextRequestId,
    // The HTTP server Fastify would create (its timeouts included), with the fast path in front.
    serverFactory: (handler, options) => {
      const server = createServer((req, res) => {
        if (fastPath === undefined || !fastPath(req, res)) handler(req, res);
      });
      const timeouts = options as { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number };
      server.keepAliveTimeout = timeouts.keepAliveTimeout ?? FASTIFY_KEEP_ALIVE_TIMEOUT_MS;
      server.requestTimeout = timeouts.requestTimeout ?? 0;
      server.setTimeout(timeouts.connectionTimeout ?? 0);
      return server;
    },
    // Fastify's own request lines log the raw URL, which holds the API key: we log our own
    // (onResponse below) with the key redacted.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: limits.httpMaxBodyBytes,
    routerOptions: {
      ignoreTrailingSlash: true,
      // A key longer than the router's default 100 characters must reach auth, not 404/414.
      maxParamLength: Math.max(1024, 3 * longestKey),
    },
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    frameworkErrors: (err, req, reply) => {
      sendTransportError(req, reply, err);
    },
    clientErrorHandler: writeClientError,
  }) as unknown as FastifyInstance;

  // Outside the RPC routes (404s, /health) a body is never read: accept any media type and leave
  // the stream to Node, which discards it, so that an unknown path is a 404 rather than a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => {
    done(null, undefined);
  });
  app.setErrorHandler((err, req, reply) => {
    sendTransportError(req, reply, err);
  });
  app.setNotFoundHandler((req, reply) => {
    const error = new InvalidRequestError('not found: use POST /v3/<API_KEY> or WebSocket /ws/v3/<API_KEY>', 404);
    sendTransportError(req, reply, error);
  });
  // One log line per HTTP response; WebSocket sessions log their own open/close.
  app.addHook('onResponse', (req, reply, done) => {
    const status = reply.statusCode;
    const level = status >= 500 || status === 401 || status === 403 ? 'warn' : 'debug';
    // Checked first: building the line (and redacting the URL) for a disabled level costs per request.
    if ((req.log as Partial<Logger>).isLevelEnabled?.(level) ?? true) {
      req.log[level]({ method: req.method, url: redactUrl(req.url), statusCode: status, responseTime: reply.elapsedTime }, 'request completed');
    }
    done();
  });

  // Once close() has begun, responses to requests still in flight end their keep-alive
  // connection; otherwise the client could hold it open and close() would wait for its timeout.
  let closing = false;
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });

  await app.register(fastifyWebsocket, {
    options: { maxPayload: limits.wsMaxMessageBytes, perMessageDeflate: false },
    // A socket error is almost always the client's doing (oversized frame → 1009, invalid
    // UTF-8 → 1007, reset): ws has already started the close handshake, so only log it.
    errorHandler: (err, socket, req) => {
      req.log.debug({ err }, 'websocket error');
      if (socket.readyState !== socket.CLOSING && socket.readyState !== socket.CLOSED) socket.terminate();
    },
    preClose: async () => {
      closing = true;
      await closeWebSockets(app.websocketServer.clients, limits.wsCloseGraceMs);
      app.websocketServer.close();
    },
  });

  app.get('/health', async (req, reply) => {
    const network = selectNetwork(req.headers.host);
    let health: { ok: boolean } & Record<string, unknown>;
    try {
      health = await network.health();
    } catch (err) {
      req.log.error({ err, network: network.name }, 'health check failed');
      health = { ok: false };
    }
    return reply.code(health.ok ? 200 : 503).send({ ...health, ok: health.ok === true });
  });

  await app.register(async (rpc) => {
    // Callback style, not async: this runs on every request and a promise per hook shows in the
    // transport's cost.
    const authenticate = (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void => {
      const key = (req.params as { apiKey?: string }).apiKey;
      if (key === undefined || key === '') done(new ResourceNotFoundError('project id required in the url', 401));
      else if (!isKnownKey(key)) done(new ResourceNotFoundError('invalid project id', 401));
      else done();
    };
    const methodNotAllowed =
      (allow: string) =>
      async (_req: FastifyRequest, reply: FastifyReply): Promise<void> => {
        reply.header('allow', allow);
        throw new InvalidRequestError('method not allowed', 405);
      };

    // Our parsers only collect bytes: dispatch answers bad JSON with -32700 itself, and any other
    // media type falls through to Fastify's 415, which the error handler rewrites.
    rpc.removeAllContentTypeParsers();
    rpc.addContentTypeParser(ACCEPTED_CONTENT_TYPES, { parseAs: 'buffer', bodyLimit: limits.httpMaxBodyBytes }, (_req, body, done) => {
      done(null, body);
    });

    for (const url of ['/v3', '/ws/v3']) {
      rpc.route({
        method: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
        url,
        onRequest: authenticate, // refuses: no key in these paths
        handler: async () => {
          throw new ResourceNotFoundError('project id required in the url', 401);
        },
      });
    }

    rpc.post('/v3/:apiKey', { onRequest: authenticate }, async (req, reply) => {
      let body = req.body;
      if (!Buffer.isBuffer(body)) {
        // No body was parsed: either no Content-Type (geth: 415) or an accepted type with no
        // Content-Length/Transfer-Encoding, which is an empty body (→ parse error).
        if (!isAcceptedContentType(req.headers['content-type'])) throw unsupportedMediaType();
        body = Buffer.alloc(0);
      }
      const out = await dispatch(body as Buffer, selectNetwork(req.headers.host), req.log, httpLimits);
      // A notification (or a batch of them) gets an empty 200, as geth's HTTP server sends.
      if (out === undefined) return reply.code(200).send();
      return reply.code(200).type('application/json').send(out);
    });
    // Registered as onRequest too so that a WebSocket upgrade aimed at the HTTP path is refused
    // before @fastify/websocket's fallback would accept and drop it.
    const refuseHttp = methodNotAllowed('POST');
    rpc.route({ method: ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'], url: '/v3/:apiKey', onRequest: [authenticate, refuseHttp], handler: refuseHttp });

    rpc.route({
      method: 'GET',
      url: '/ws/v3/:apiKey',
      onRequest: authenticate,
      handler: async (_req, reply) => {
        reply.header('upgrade', 'websocket');
        throw new InvalidRequestError('websocket upgrade required', 426);
      },
      wsHandler: (socket: WebSocket, req: FastifyRequest) => {
        serveWebSocket(socket, req, selectNetwork(req.headers.host), wsLimits, limits.wsMaxInFlightMessages);
      },
    });
    const refuseWs = methodNotAllowed('GET');
    rpc.route({ method: ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'], url: '/ws/v3/:apiKey', onRequest: [authenticate, refuseWs], handler: refuseWs });
  });

  if (opts.fastPath !== false) {
    fastPath = createFastPath({
      isKnownKey,
      selectNetwork,
      isAcceptedContentType,
      limits: httpLimits,
      maxBodyBytes: limits.httpMaxBodyBytes,
      logger,
      isClosing: () => closing,
      nextRequestId,
    });
  }
  return app;
}

/**
 * One WebSocket session. Messages are dispatched as they arrive (responses may come out of
 * order; clients match by id). Over `maxInFlight` unanswered messages the socket stops reading
 * until one finishes. Messages over the size limit are refused by ws itself, which closes the
 * connection with 1009 (message too big): the frame never reaches us, so there is no request to
 * answer, and geth likewise drops connections that exceed its read limit.
 */
function serveWebSocket(socket: WebSocket, req: FastifyRequest, network: NetworkHandle, limits: DispatchLimits, maxInFlight: number): void {
  const log = req.log;
  log.debug({ url: redactUrl(req.url), network: network.name }, 'websocket open');
  let inFlight = 0;
  let paused = false;
  socket.on('message', (data: RawData) => {
    inFlight++;
    if (inFlight >= maxInFlight && !paused) {
      paused = true;
      socket.pause();
    }
    // Text frames arrive already UTF-8-checked by ws (else 1007); binary ones are decoded
    // strictly by dispatch, so invalid UTF-8 there is a -32700.
    dispatch(toBuffer(data), network, log, limits)
      .then((out) => {
        if (out !== undefined && socket.readyState === socket.OPEN) socket.send(out);
      })
      .catch((err: unknown) => log.error({ err }, 'websocket dispatch failed'))
      .finally(() => {
        inFlight--;
        if (paused && inFlight < maxInFlight) {
          paused = false;
          socket.resume();
        }
      });
  });
  socket.on('close', (code: number) => log.debug({ code, network: network.name }, 'websocket closed'));
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** Sends 1001 to every socket and waits for them to close, cutting the stragglers after `graceMs`. */
async function closeWebSockets(clients: Iterable<WebSocket>, graceMs: number): Promise<void> {
  await Promise.all(
    [...clients].map(
      (socket) =>
        new Promise<void>((resolve) => {
          if (socket.readyState === socket.CLOSED) return resolve();
          const timer = setTimeout(() => socket.terminate(), graceMs);
          socket.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          if (socket.readyState !== socket.CLOSING) socket.close(WS_CLOSE_GOING_AWAY, 'server shutting down');
        }),
    ),
  );
}

/**
 * Writes a transport-level failure as a JSON-RPC error body with its HTTP status. RpcErrors keep
 * their `httpStatus`; Fastify's errors are mapped by code; anything unknown is a 500 whose
 * details go to the log only. Expected failures are not logged here (the response line shows
 * them); unexpected ones are logged at error with their stack.
 */
function sendTransportError(req: FastifyRequest, reply: FastifyReply, err: unknown): void {
  const { status, error } = classify(err, req.log);
  // A refused WebSocket upgrade: nothing else may follow on this connection.
  if (req.headers.upgrade !== undefined) reply.raw.once('finish', () => req.raw.socket.destroy());
  reply
    .code(status)
    .type('application/json')
    .send(`{"jsonrpc":"2.0","id":null,"error":${JSON.stringify(error.toJSON())}}`);
}

function classify(err: unknown, log: FastifyBaseLogger): { status: number; error: RpcError } {
  if (err instanceof RpcError) return { status: err.httpStatus, error: err };
  const e = err as Partial<FastifyError>;
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      // -32005 "limit exceeded" (Ethereum extended codes) rather than -32600: the request may be
      // well formed, it is only too big. Message after geth's `content length too large`.
      return { status: 413, error: new LimitExceededError('content length too large', undefined, 413) };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, error: unsupportedMediaType() };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // Only /v3/:apiKey and /ws/v3/:apiKey have params: a key this long is no key of ours.
      return { status: 401, error: new ResourceNotFoundError('invalid project id', 401) };
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return { status: e.statusCode, error: new InvalidRequestError('invalid request', e.statusCode) };
  }
  log.error({ err }, 'unexpected error in the HTTP layer');
  return { status: 500, error: new InternalError() };
}

/**
 * Answers a request Node's HTTP parser rejected (malformed request line or headers, header
 * overflow, timeout) in our JSON-RPC error shape, then drops the connection, as Node does.
 */
function writeClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, text, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'request timeout']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'request headers too large']
        : [400, 'Bad Request', 'malformed HTTP request'];
  const body = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"${message}"}}`;
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

function unsupportedMediaType(): RpcError {
  return new InvalidRequestError('invalid content type, only application/json is supported', 415);
}

function isAcceptedContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const type = header.split(';')[0].trim().toLowerCase();
  return ACCEPTED_CONTENT_TYPES.includes(type);
}

/** The Host header's name, lower-case, without port or trailing dot (`[::1]:8545` → `[::1]`). */
function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end < 0 ? h : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  if (colon >= 0) h = h.slice(0, colon);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

function createNetworkSelector(networks: readonly NetworkHandle[]): (host: string | undefined) => NetworkHandle {
  const byHost = new Map<string, NetworkHandle>();
  for (const network of networks) {
    for (const name of network.hostnames) {
      const key = normalizeHost(name);
      const other = byHost.get(key);
      if (other !== undefined && other !== network) throw new Error(`buildServer: host ${name} is claimed by ${other.name} and ${network.name}`);
      byHost.set(key, network);
    }
  }
  const fallback = networks[0];
  // An exact host name wins; otherwise a dot-less entry matches the host's first label, as hosted
  // providers name networks (`mainnet.example.net`, `starknet-mainnet.localhost`).
  return (host) => {
    if (host === undefined) return fallback;
    const name = normalizeHost(host);
    return byHost.get(name) ?? byHost.get(name.split('.')[0]) ?? fallback;
  };
}

/**
 * Key check in constant time. The presented key is written into a zeroed buffer of a fixed width
 * (the longest key, at least {@link KEY_COMPARE_WIDTH} bytes) and compared with every configured
 * key, padded the same way, by `crypto.timingSafeEqual`; the lengths are compared separately and
 * the results folded without branching. So the time does not depend on how much of a key the
 * presented one matches, nor on the keys' lengths. A presented key longer than the width cannot
 * match and is refused at once: that shows only the width, a constant unless a configured key is
 * longer than 128 bytes.
 *
 * Not digests: hashing the presented key (HMAC or SHA-256) cost several µs a request under load,
 * more than the rest of the HTTP fast path's own work.
 */
function createKeyChecker(apiKeys: readonly string[]): (key: string) => boolean {
  const width = Math.max(KEY_COMPARE_WIDTH, ...apiKeys.map((k) => Buffer.byteLength(k)));
  const known = apiKeys.map((k) => {
    const padded = Buffer.alloc(width);
    padded.write(k);
    return { padded, length: Buffer.byteLength(k) };
  });
  const scratch = Buffer.alloc(width);
  return (key) => {
    const length = Buffer.byteLength(key);
    if (length > width) return false;
    scratch.fill(0);
    scratch.write(key);
    let matches = 0;
    for (const k of known) matches |= Number(timingSafeEqual(scratch, k.padded)) & Number(k.length === length);
    return matches === 1;
  };
}
