import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { Config } from '../config/settings.js';
import type { NodeMetrics } from '../pipeline/metrics.js';
import type { Pipeline, Session } from '../pipeline/pipeline.js';
import type { DispatchLimits } from '../rpc/dispatch.js';
import { InvalidRequestError, RejectedByKeySettingsError } from '../rpc/errors.js';
import { corsHeaders, preflightHeaders } from './cors.js';
import type { Drain } from './drain.js';
import type { Entrance } from './entrance.js';
import { send } from './fastPath.js';
import { ACCEPTED_CONTENT_TYPES, isAcceptedContentType, unsupportedMediaType } from './transportErrors.js';
import { serveWebSocket, type WebSocketLimits } from './websocket.js';

/**
 * The RPC routes of the server as Fastify serves them: `POST /v3/:apiKey`, the WebSocket
 * `/ws/v3/:apiKey`, their CORS preflights, the key-less `/v3` and `/ws/v3` (401) and the methods
 * they refuse (405). The session comes from the entrance (`entrance.ts`) in `onRequest`, before a
 * body is read or a socket upgraded; each message then goes through the request pipeline, which
 * writes its access line. Every answer Fastify sends itself (refusals, preflights) gets its line
 * from the server's `onSend` hook (`server.ts`).
 */

/** What the routes need from the server. */
export interface RpcRouteDeps {
  pipeline: Pipeline;
  entrance: Entrance;
  metrics: NodeMetrics;
  config: Config;
  httpLimits: DispatchLimits;
  wsLimits: WebSocketLimits;
  /** The logger of WebSocket sessions when the server has none. */
  log: Logger;
  logger: Logger | undefined;
  /** The shutdown drain: whether it runs, and what its cutoff needs of each request and socket. */
  drain: Drain;
}

/** The request as the RPC routes decorate it once entered. */
interface RequestWithSession extends FastifyRequest {
  session?: Session;
}

/** The key in the route's path (undefined on the key-less routes). */
const apiKeyOf = (req: FastifyRequest): string | undefined => (req.params as { apiKey?: string }).apiKey;

/** Registers the RPC routes (inside their own Fastify plugin). */
export async function registerRpcRoutes(rpc: FastifyInstance, deps: RpcRouteDeps): Promise<void> {
  const { pipeline, entrance, metrics, config, httpLimits, wsLimits, log, logger } = deps;
  // The session of a request to a key route, or its refusal (401) before a body is read.
  const enter = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const entered = await entrance.enter(req.headers.upgrade === undefined ? 'http' : 'ws', apiKeyOf(req), req.headers, req.socket);
    if (!entered.ok) {
      reply.headers(corsHeaders(undefined, req.headers.origin));
      throw entered.error;
    }
    const session = entered.session;
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) session.gone.abort();
    });
    (req as RequestWithSession).session = session;
  };
  const methodNotAllowed =
    (allow: string) =>
    async (_req: FastifyRequest, reply: FastifyReply): Promise<void> => {
      reply.header('allow', allow);
      throw new InvalidRequestError('method not allowed', 405);
    };
  const preflight = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const pass = entrance.preflight(apiKeyOf(req), req.headers.origin);
    if (!pass.ok) {
      if (pass.error instanceof RejectedByKeySettingsError) reply.header('vary', 'Origin');
      throw pass.error;
    }
    reply
      .code(200)
      .headers(preflightHeaders(pass.policy, req.headers.origin, config.cors.maxAgeSeconds))
      .send();
  };

  // Our parsers only collect bytes: the pipeline answers bad JSON with -32700 itself, and any
  // other media type falls through to Fastify's 415, which the error handler rewrites.
  rpc.removeAllContentTypeParsers();
  rpc.addContentTypeParser(ACCEPTED_CONTENT_TYPES, { parseAs: 'buffer', bodyLimit: config.transport.httpMaxBodyBytes }, (_req, body, done) => {
    done(null, body);
  });

  for (const [url, route] of [
    ['/v3', 'rpc-no-key'],
    ['/ws/v3', 'ws-no-key'],
  ] as const) {
    // No key in the path: the entrance refuses (401), in onRequest, so that a WebSocket upgrade
    // is refused before it switches protocols.
    rpc.route({ method: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'], url, config: { route }, onRequest: enter, handler: enter });
  }

  rpc.post('/v3/:apiKey', { config: { route: 'rpc' }, onRequest: enter }, async (req, reply) => {
    let body = req.body;
    if (!Buffer.isBuffer(body)) {
      // No body was parsed: either no Content-Type (geth: 415) or an accepted type with no
      // Content-Length/Transfer-Encoding, which is an empty body (→ parse error).
      if (!isAcceptedContentType(req.headers['content-type'])) throw unsupportedMediaType();
      body = Buffer.alloc(0);
    }
    const session = (req as RequestWithSession).session!;
    const entry = deps.drain.entry(reply.raw);
    if (entry !== undefined) {
      entry.body = body as Buffer;
      entry.abort = () => session.gone.abort();
    }
    const out = await pipeline.handle(session, body as Buffer, httpLimits, req.log);
    // Written on the raw response, not through Fastify: the pipeline wrote this request's access line.
    reply.hijack();
    send(reply.raw, out, corsHeaders(session.policy, session.origin), deps.drain.draining);
  });
  rpc.options('/v3/:apiKey', { config: { route: 'rpc' } }, preflight);
  rpc.options('/ws/v3/:apiKey', { config: { route: 'ws' } }, preflight);
  // Registered as onRequest too so that a WebSocket upgrade aimed at the HTTP path is refused
  // before @fastify/websocket's fallback would accept and drop it.
  const refuseHttp = methodNotAllowed('POST, OPTIONS');
  rpc.route({
    method: ['GET', 'PUT', 'DELETE', 'PATCH'],
    url: '/v3/:apiKey',
    config: { route: 'rpc' },
    onRequest: [enter, refuseHttp],
    handler: refuseHttp,
  });

  rpc.route({
    method: 'GET',
    url: '/ws/v3/:apiKey',
    config: { route: 'ws' },
    onRequest: [enter, checkUpgrade],
    handler: async (_req, reply) => {
      reply.header('upgrade', 'websocket');
      throw new InvalidRequestError('websocket upgrade required', 426);
    },
    wsHandler: (socket: WebSocket, req: FastifyRequest) => {
      serveWebSocket(socket, (req as RequestWithSession).session!, pipeline, metrics, wsLimits, logger ? (req.log as unknown as Logger) : log, deps.drain);
    },
  });
  const refuseWs = methodNotAllowed('GET, OPTIONS');
  rpc.route({
    method: ['POST', 'PUT', 'DELETE', 'PATCH'],
    url: '/ws/v3/:apiKey',
    config: { route: 'ws' },
    onRequest: [enter, refuseWs],
    handler: refuseWs,
  });
}

/**
 * A WebSocket upgrade the ws library would refuse with a plain-text 400 (wrong version, missing
 * or malformed key) is refused here with a JSON-RPC body instead.
 */
async function checkUpgrade(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (req.headers.upgrade === undefined) return;
  const version = req.headers['sec-websocket-version'];
  const key = req.headers['sec-websocket-key'];
  if (version !== '13') {
    reply.header('sec-websocket-version', '13');
    throw new InvalidRequestError('invalid WebSocket upgrade: Sec-WebSocket-Version must be 13', 400);
  }
  if (typeof key !== 'string' || !/^[+/0-9A-Za-z]{22}==$/.test(key)) {
    throw new InvalidRequestError('invalid WebSocket upgrade: missing or malformed Sec-WebSocket-Key', 400);
  }
}
