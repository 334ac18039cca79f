import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { Config } from '../config/settings.js';
import { ClientGone } from '../pipeline/clientGone.js';
import type { KeyRegistry } from '../pipeline/keys.js';
import type { NodeMetrics } from '../pipeline/metrics.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { DispatchLimits } from '../rpc/dispatch.js';
import { InvalidRequestError, RejectedByKeySettingsError, ResourceNotFoundError } from '../rpc/errors.js';
import { corsHeaders, preflightAllowed, preflightHeaders } from './cors.js';
import { send } from './fastPath.js';
import type { NetworkHandle } from './networks.js';
import { ACCEPTED_CONTENT_TYPES, isAcceptedContentType, unsupportedMediaType } from './transportErrors.js';
import { serveWebSocket, type WebSocketLimits } from './websocket.js';

/**
 * The RPC routes of the server as Fastify serves them: `POST /v3/:apiKey`, the WebSocket
 * `/ws/v3/:apiKey`, their CORS preflights, the key-less `/v3` and `/ws/v3` (401) and the methods
 * they refuse (405). Authentication runs in `onRequest`, before a body is read or a socket
 * upgraded; each message then goes through the request pipeline.
 */

/** What the routes need from the server. */
export interface RpcRouteDeps {
  pipeline: Pipeline;
  keys: KeyRegistry;
  metrics: NodeMetrics;
  selectNetwork(host: string | undefined): NetworkHandle;
  config: Config;
  httpLimits: DispatchLimits;
  wsLimits: WebSocketLimits;
  /** The logger of WebSocket sessions when the server has none. */
  log: Logger;
  logger: Logger | undefined;
  isClosing(): boolean;
}

/** The request as the RPC routes decorate it once authenticated. */
export interface RequestWithSession extends FastifyRequest {
  session?: ReturnType<Pipeline['session']>;
  gone?: ClientGone;
  /** The pipeline wrote the access line: the transport does not write another. */
  pipelined?: boolean;
}

/** Registers the RPC routes (inside their own Fastify plugin). */
export async function registerRpcRoutes(rpc: FastifyInstance, deps: RpcRouteDeps): Promise<void> {
  const { pipeline, keys, metrics, selectNetwork, config, httpLimits, wsLimits, log, logger } = deps;
  const authenticate = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const key = (req.params as { apiKey?: string }).apiKey;
    const auth = await pipeline.authenticate({ key, authorization: req.headers.authorization });
    if (!auth.ok) {
      reply.headers(corsHeaders(undefined, req.headers.origin));
      throw auth.error;
    }
    const request = req as RequestWithSession;
    const gone = new ClientGone();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) gone.abort();
    });
    request.gone = gone;
    request.session = pipeline.session({
      policy: auth.policy,
      target: selectNetwork(req.headers.host),
      transport: req.headers.upgrade === undefined ? 'http' : 'ws',
      remoteAddress: req.socket.remoteAddress,
      origin: req.headers.origin,
      userAgent: req.headers['user-agent'],
      gone,
    });
  };
  const methodNotAllowed =
    (allow: string) =>
    async (_req: FastifyRequest, reply: FastifyReply): Promise<void> => {
      reply.header('allow', allow);
      throw new InvalidRequestError('method not allowed', 405);
    };
  const preflight = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const key = (req.params as { apiKey?: string }).apiKey;
    const policy = key ? keys.lookup(key) : undefined;
    if (policy === undefined) throw new ResourceNotFoundError(key ? 'invalid project id' : 'project id required in the url', 401);
    if (!preflightAllowed(policy, req.headers.origin)) {
      pipeline.refused('policy');
      reply.header('vary', 'Origin');
      throw new RejectedByKeySettingsError();
    }
    reply
      .code(200)
      .headers(preflightHeaders(policy, req.headers.origin, config.cors.maxAgeSeconds))
      .send();
  };

  // Our parsers only collect bytes: the pipeline answers bad JSON with -32700 itself, and any
  // other media type falls through to Fastify's 415, which the error handler rewrites.
  rpc.removeAllContentTypeParsers();
  rpc.addContentTypeParser(ACCEPTED_CONTENT_TYPES, { parseAs: 'buffer', bodyLimit: config.transport.httpMaxBodyBytes }, (_req, body, done) => {
    done(null, body);
  });

  const noKey = async (): Promise<void> => {
    pipeline.refused('auth');
    throw new ResourceNotFoundError('project id required in the url', 401);
  };
  for (const [url, route] of [
    ['/v3', 'rpc-no-key'],
    ['/ws/v3', 'ws-no-key'],
  ] as const) {
    // onRequest, so that a WebSocket upgrade is refused before it switches protocols.
    rpc.route({ method: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'], url, config: { route }, onRequest: noKey, handler: noKey });
  }

  rpc.post('/v3/:apiKey', { config: { route: 'rpc' }, onRequest: authenticate }, async (req, reply) => {
    let body = req.body;
    if (!Buffer.isBuffer(body)) {
      // No body was parsed: either no Content-Type (geth: 415) or an accepted type with no
      // Content-Length/Transfer-Encoding, which is an empty body (→ parse error).
      if (!isAcceptedContentType(req.headers['content-type'])) throw unsupportedMediaType();
      body = Buffer.alloc(0);
    }
    const request = req as RequestWithSession;
    request.pipelined = true;
    const out = await pipeline.handle(request.session!, body as Buffer, httpLimits, req.log);
    reply.hijack();
    send(reply.raw, out, corsHeaders(request.session!.policy, req.headers.origin), deps.isClosing());
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
    onRequest: [authenticate, refuseHttp],
    handler: refuseHttp,
  });

  rpc.route({
    method: 'GET',
    url: '/ws/v3/:apiKey',
    config: { route: 'ws' },
    onRequest: [authenticate, checkUpgrade],
    handler: async (_req, reply) => {
      reply.header('upgrade', 'websocket');
      throw new InvalidRequestError('websocket upgrade required', 426);
    },
    wsHandler: (socket: WebSocket, req: FastifyRequest) => {
      const request = req as RequestWithSession;
      request.pipelined = true;
      serveWebSocket(socket, request.session!, request.gone!, pipeline, metrics, wsLimits, logger ? (req.log as unknown as Logger) : log);
    },
  });
  const refuseWs = methodNotAllowed('GET, OPTIONS');
  rpc.route({
    method: ['POST', 'PUT', 'DELETE', 'PATCH'],
    url: '/ws/v3/:apiKey',
    config: { route: 'ws' },
    onRequest: [authenticate, refuseWs],
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
