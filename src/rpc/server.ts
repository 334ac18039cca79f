import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import { DEFAULT_TRANSPORT_LIMITS, type TransportLimits } from '../config/limits.js';
import { createLogger, redactUrl } from '../log/logger.js';
import { createKeyChecker } from './apiKeys.js';
import { type DispatchLimits, dispatch } from './dispatch.js';
import { InvalidRequestError, ResourceNotFoundError } from './errors.js';
import { createFastPath } from './fastPath.js';
import { createNetworkSelector, type NetworkHandle } from './networks.js';
import { ACCEPTED_CONTENT_TYPES, isAcceptedContentType, sendTransportError, unsupportedMediaType, writeClientError } from './transportErrors.js';
import { closeWebSockets, serveWebSocket } from './websocket.js';

export type { TransportLimits } from '../config/limits.js';
export type { NetworkHandle } from './networks.js';

/**
 * The server: Fastify with its routes (JSON-RPC over HTTP and WebSocket, /health), auth in
 * `onRequest`, the HTTP fast path in front, request logging with keys redacted, clean shutdown.
 * Keys, networks, WebSocket sessions and transport errors live in their own modules beside it.
 */

/** Options of {@link buildServer}. */
export interface ServerOptions {
  networks: readonly NetworkHandle[]; // networks[0] is the default, used when the Host matches no other
  apiKeys: readonly string[]; // at least one
  logger?: Logger | boolean;
  limits?: Partial<TransportLimits>; // override the constants (tests use small values)
  fastPath?: boolean; // answer well-formed RPC POSTs before Fastify's router (default true; see fastPath.ts)
}

/** Fastify's default keep-alive timeout, which its own server factory sets (72 s). */
const FASTIFY_KEEP_ALIVE_TIMEOUT_MS = 72_000;

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
