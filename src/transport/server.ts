import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config/settings.js';
import { createLogger, RequestLog } from '../log/logger.js';
import { KeyRegistry, openKeys } from '../pipeline/keys.js';
import { connectLimitStore, type LimitStore } from '../pipeline/limitStore.js';
import { NodeMetrics } from '../pipeline/metrics.js';
import { createPipeline, type Pipeline } from '../pipeline/pipeline.js';
import type { DispatchLimits } from '../rpc/dispatch.js';
import { InvalidRequestError } from '../rpc/errors.js';
import { Drain, type DrainReport } from './drain.js';
import { createEntrance } from './entrance.js';
import { createFastPath, send } from './fastPath.js';
import { registerMetricsRoutes } from './metricsRoutes.js';
import { createNetworkSelector, type NetworkHandle } from './networks.js';
import { type RouteName, routeTemplate } from './routes.js';
import { registerRpcRoutes } from './rpcRoutes.js';
import { type DiscardLimits, isAcceptedContentType, sendTransportError, writeClientError } from './transportErrors.js';
import { closeWebSockets, type WebSocketLimits } from './websocket.js';

export type { NetworkHandle } from './networks.js';

/**
 * The server: Fastify with its routes (JSON-RPC over HTTP and WebSocket, CORS preflights,
 * /health, /metrics), the HTTP fast path in front, and a shutdown that answers what it received.
 * Every JSON-RPC session, whichever route carried it, is opened by the one entrance
 * (`entrance.ts`) and each of its messages goes through the one request pipeline. Access lines
 * are written by the pipeline's access log (`log/accessLog.ts`): the pipeline writes each
 * message's, the fast path that of a key it refused, and Fastify's `onSend` hook that of every
 * answer Fastify sends itself (`registerFastifyAnswers`; the pipeline's answers are written on the
 * raw response).
 */

/** Options of {@link buildServer}. */
export interface ServerOptions {
  /** networks[0] is the default, used when the Host matches no other. */
  networks: readonly NetworkHandle[];
  /** The keys and their policies (a registry the keys-file watcher can update), or plain keys. */
  keys: KeyRegistry | readonly string[];
  /** The configuration (transport limits, CORS, the settings each part reads), as the composition root loaded it. */
  config: Config;
  logger?: Logger | boolean;
  /** Answer well-formed RPC POSTs before Fastify's router (default true; see fastPath.ts). */
  fastPath?: boolean;
  /** Serve GET /metrics on this listener (default true; false when a separate metrics port serves it). */
  metricsRoute?: boolean;
  /** The clock of the per-key rate windows and daily quotas (default `Date.now`): tests move it instead of waiting. */
  now?: () => number;
}

/** The server, with what the CLI and tests need besides Fastify's API. */
export interface TracenodeServer {
  readonly app: FastifyInstance;
  readonly pipeline: Pipeline;
  readonly metrics: NodeMetrics;
  readonly keys: KeyRegistry;
  /**
   * Drains and closes (`drain.ts`): /health turns 503, the listener stops accepting once no
   * request comes, every request already received (HTTP, batch, WebSocket frame) is answered,
   * WebSockets get 1001 after their answers, idle keep-alive connections are closed; what still
   * runs at `transport.shutdownDrainMs` is answered -32000 `the node is shutting down`.
   * Resolves with what the drain did (undefined when it had already run).
   */
  shutdown(): Promise<DrainReport | undefined>;
}

/** Fastify's default keep-alive timeout, which its own server factory sets (72 s). */
const FASTIFY_KEEP_ALIVE_TIMEOUT_MS = 72_000;

/**
 * Builds the JSON-RPC server without listening; the CLI calls `app.listen`, tests bind 127.0.0.1:0.
 *
 * Routes:
 * - `POST /v3/:apiKey` (trailing slash allowed): JSON-RPC over HTTP. `OPTIONS`: CORS preflight.
 *   Other methods → 405.
 * - `GET /ws/v3/:apiKey`: WebSocket; each text (or UTF-8 binary) message is one JSON-RPC body,
 *   answered on the same socket. A plain GET without upgrade → 426.
 * - `/v3`, `/ws/v3` (no key) → 401 `project id required in the url`; unknown key → 401
 *   `invalid project id`; a key's secret or JWT missing or wrong → 401. Checked before the body
 *   is read or a WebSocket upgrade happens.
 * - `GET /health` (no key): the Host's network `health()`, 200 when ok, else 503 (and while draining).
 * - `GET /metrics` (no key), Prometheus text, and `GET /metrics/usage`, today's calls per key id
 *   and method (JSON), unless served on a separate listener.
 * - anything else → 404 with a JSON-RPC error body.
 */
export async function buildServer(opts: ServerOptions): Promise<TracenodeServer> {
  if (opts.networks.length === 0) throw new Error('buildServer: at least one network is required');
  const config = opts.config;
  const t = config.transport;
  const keys = opts.keys instanceof KeyRegistry ? opts.keys : new KeyRegistry(openKeys([...opts.keys]));
  const selectNetwork = createNetworkSelector(opts.networks);
  const logger = opts.logger === true ? createLogger() : opts.logger || undefined;
  const redisLog = logger ?? { info() {}, warn() {} };
  const limitStore = config.server.redis === undefined ? undefined : connectLimitStore(config.server.redis, config.redis, redisLog);
  const metrics = networkMetrics(opts.networks, limitStore);
  const pipeline = createPipeline({ keys, metrics, logger, limitStore, now: opts.now });
  const entrance = createEntrance({ pipeline, keys, selectNetwork });
  const { httpLimits, wsLimits } = transportLimits(config);
  const discard: DiscardLimits = { maxBytes: t.httpDiscardMaxBytes, idleMs: t.httpDiscardIdleMs };
  const quiet = { error() {}, warn() {}, debug() {}, info() {}, isLevelEnabled: () => false } as unknown as Logger;
  const log = logger ?? quiet;

  const drain = new Drain({ drainMs: t.shutdownDrainMs, noticeMs: t.shutdownNoticeMs, quietMs: t.shutdownQuietMs, wsCloseGraceMs: t.wsCloseGraceMs });
  const closing = () => drain.draining;
  let fastPath: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  let requestCount = 0;
  const nextRequestId = () => `req-${(requestCount++).toString(36)}`;
  const app = createFastify({
    config,
    logger,
    nextRequestId,
    maxParamLength: Math.max(1024, 3 * keys.longestKey()),
    discard,
    // A missing Host header is answered here, with a JSON-RPC body, not by Node's bare 400.
    serve: (req, res, handler) => {
      drain.arrived(req);
      if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
        drain.track(res);
        pipeline.refused('transport');
        req.resume();
        send(res, { status: 400, body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"missing Host header"}}' }, {}, true);
        return;
      }
      if (fastPath === undefined || !fastPath(req, res)) {
        drain.trackRouted(res);
        handler(req, res);
      }
    },
  });

  registerFastifyAnswers(app, pipeline, closing, discard);

  await app.register(fastifyWebsocket, {
    options: { maxPayload: t.wsMaxMessageBytes, perMessageDeflate: false },
    // A socket error is almost always the client's doing (oversized frame → 1009, invalid
    // UTF-8 → 1007, reset): ws has already started the close handshake, so only log it.
    errorHandler: (err, socket, req) => {
      req.log.debug({ err }, 'websocket error');
      if (socket.readyState !== socket.CLOSING && socket.readyState !== socket.CLOSED) socket.terminate();
    },
    preClose: async () => {
      await closeWebSockets(app.websocketServer.clients, t.wsCloseGraceMs);
      app.websocketServer.close();
    },
  });

  registerHealthRoute(app, selectNetwork, closing);
  if (opts.metricsRoute !== false) registerMetricsRoutes(app, metrics);

  await app.register(async (rpc) => registerRpcRoutes(rpc, { pipeline, entrance, metrics, config, httpLimits, wsLimits, log, logger, drain }));

  if (opts.fastPath !== false) {
    fastPath = createFastPath({
      pipeline,
      entrance,
      isAcceptedContentType,
      limits: httpLimits,
      maxBodyBytes: t.httpMaxBodyBytes,
      log: () => (logger ? new RequestLog(logger, nextRequestId()) : log),
      isClosing: closing,
      track: drain.track,
    });
  }

  const shutdown = async (): Promise<DrainReport | undefined> => {
    if (drain.draining) return undefined;
    // Not http.Server#close: it would drop idle keep-alive connections at once, resetting
    // requests already on their way in them.
    const report = await drain.run(app.server);
    // What the drain gave up on is cut; a connection still discarding a refused body ends by itself.
    if (report.leftOpen > 0) app.server.closeAllConnections();
    await app.close();
    await limitStore?.close();
    return report;
  };

  return { app, pipeline, metrics, keys, shutdown };
}

/** The metrics of a server: its own counters, and what each network reports when scraped. */
function networkMetrics(networks: readonly NetworkHandle[], limitStore: LimitStore | undefined): NodeMetrics {
  return new NodeMetrics({
    heads: () =>
      Promise.all(
        networks.map(async (n) => {
          const health = await n.health().catch(() => ({ ok: false }) as { ok: boolean; head?: { number: number } });
          return { network: n.name, number: (health as { head?: { number: number } }).head?.number };
        }),
      ),
    caches: () => networks.flatMap((n) => Object.entries(n.cacheStats?.() ?? {}).map(([cache, stats]) => ({ network: n.name, cache, ...stats }))),
    workers: () => networks.flatMap((n) => (n.evmStats ? [{ network: n.name, ...n.evmStats() }] : [])),
    subscriptions: () => networks.flatMap((n) => (n.subscriptionStats ? [{ network: n.name, ...n.subscriptionStats() }] : [])),
    limitStore: limitStore && (() => ({ up: limitStore.up(), fallbacks: limitStore.fallbacks() })),
    headerDeviations: () =>
      networks.flatMap((n) => Object.entries(n.headerDeviations?.() ?? {}).map(([rule, count]) => ({ network: n.name, rule, count: count ?? 0 }))),
    remoteState: () => networks.flatMap((n) => (n.remoteState ? [{ network: n.name, ...n.remoteState() }] : [])),
  });
}

/** The dispatch limits of an HTTP request, and those of a WebSocket connection, from the settings. */
function transportLimits(config: Config): { httpLimits: DispatchLimits; wsLimits: WebSocketLimits } {
  const t = config.transport;
  const httpLimits: DispatchLimits = {
    maxBatchItems: t.httpMaxBatchItems,
    maxMethodNameLength: t.maxMethodNameLength,
    batchResponseMaxBytes: t.batchResponseMaxBytes,
  };
  const wsLimits = {
    dispatch: { ...httpLimits, maxBatchItems: t.wsMaxBatchItems },
    maxInFlight: t.wsMaxInFlightMessages,
    maxBufferedBytes: t.wsMaxBufferedBytes,
    maxBacklogBytes: config.subscriptions.maxBacklogBytes,
    writeStallMs: t.wsWriteStallMs,
    pingIntervalMs: t.wsPingIntervalMs,
    closeGraceMs: t.wsCloseGraceMs,
    slowConsumerGraceMs: t.wsSlowConsumerGraceMs,
  };
  return { httpLimits, wsLimits };
}

/**
 * Fastify on the HTTP server it would create itself (its timeouts included), whose requests go
 * to `serve` first: the fast path takes the ones it answers, and `handler` (Fastify's router) the
 * rest.
 */
function createFastify(o: {
  config: Config;
  logger: Logger | undefined;
  nextRequestId(): string;
  maxParamLength: number;
  discard: DiscardLimits;
  serve(req: IncomingMessage, res: ServerResponse, handler: (req: IncomingMessage, res: ServerResponse) => void): void;
}): FastifyInstance {
  return Fastify({
    loggerInstance: o.logger,
    genReqId: o.nextRequestId,
    serverFactory: (handler, options) => {
      const server = createServer({ requireHostHeader: false }, (req, res) => o.serve(req, res, handler));
      const timeouts = options as { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number };
      server.keepAliveTimeout = timeouts.keepAliveTimeout ?? FASTIFY_KEEP_ALIVE_TIMEOUT_MS;
      server.requestTimeout = timeouts.requestTimeout ?? 0;
      server.setTimeout(timeouts.connectionTimeout ?? 0);
      return server;
    },
    // Fastify's request lines log the raw URL, which holds the API key: we log route templates.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: o.config.transport.httpMaxBodyBytes,
    routerOptions: {
      ignoreTrailingSlash: true,
      // A key longer than the router's default 100 characters must reach auth, not 404/414.
      maxParamLength: o.maxParamLength,
    },
    // Shutdown is ours (buildServer's shutdown()): requests keep being answered while it drains.
    forceCloseConnections: false,
    return503OnClosing: false,
    frameworkErrors: (err, req, reply) => {
      sendTransportError(req, reply, err, o.discard);
    },
    clientErrorHandler: writeClientError,
  }) as unknown as FastifyInstance;
}

/**
 * What Fastify answers itself, outside the pipeline: transport errors (`transportErrors.ts`) and
 * 404s, whose bodies it never reads, and the access line of each of its answers — every request
 * answered outside the pipeline (transport errors, /health, preflights), by its route's template,
 * never the URL, which may hold a key. The pipeline's own answers are written on the raw response
 * and never pass here. While draining, every answer closes its keep-alive connection, but a 413,
 * whose connection stays open until the refused body is discarded.
 */
function registerFastifyAnswers(app: FastifyInstance, pipeline: Pipeline, isClosing: () => boolean, discard: DiscardLimits): void {
  // Outside the RPC routes (404s, /health) a body is never read: accept any media type and leave
  // the stream to Node, which discards it, so that an unknown path is a 404 rather than a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => {
    done(null, undefined);
  });
  app.setErrorHandler((err, req, reply) => {
    sendTransportError(req, reply, err, discard);
  });
  app.setNotFoundHandler((req, reply) => {
    sendTransportError(req, reply, new InvalidRequestError('not found: use POST /v3/<API_KEY> or WebSocket /ws/v3/<API_KEY>', 404));
  });
  app.addHook('onSend', (req, reply, payload, done) => {
    const route = (req.routeOptions.config as { route?: RouteName } | undefined)?.route;
    pipeline.access.route(
      { method: req.method, route: routeTemplate(route ?? 'unmatched'), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 1000) / 1000 },
      req.log,
    );
    if (isClosing() && reply.statusCode !== 413) reply.header('connection', 'close');
    done(null, payload);
  });
}

/**
 * `GET /health` (no key): the Host's network `health()`, 200 when ok, else 503; 503 with
 * `draining: true` from the moment a shutdown begins, so a load balancer stops sending.
 */
function registerHealthRoute(app: FastifyInstance, selectNetwork: (host: string | undefined) => NetworkHandle, draining: () => boolean): void {
  app.get('/health', { config: { route: 'health' } }, async (req, reply) => {
    const network = selectNetwork(req.headers.host);
    let health: { ok: boolean } & Record<string, unknown>;
    try {
      health = await network.health();
    } catch (err) {
      req.log.error({ err, network: network.name }, 'health check failed');
      health = { ok: false };
    }
    if (draining()) return reply.code(503).send({ ...health, ok: false, draining: true });
    return reply.code(health.ok ? 200 : 503).send({ ...health, ok: health.ok === true });
  });
}
