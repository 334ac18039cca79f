import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { type DispatchLimits, type DispatchLogger, type DispatchTarget, dispatch } from './dispatch.js';

/**
 * The JSON-RPC POST route, answered straight from Node's HTTP server when the request is the
 * ordinary case: `POST /v3/<known key>`, an accepted JSON media type, a Content-Length within the
 * body limit, no Expect or Transfer-Encoding, the server not closing, and per-request debug
 * logging off. Everything else — every error the transport answers (401, 404, 405, 413, 415,
 * 503), chunked bodies, debug logging — goes to Fastify's routes, which remain the reference
 * behaviour; the answer on the wire is the same either way (test/e2e/fastPath.test.ts).
 *
 * Why: Fastify's per-request machinery (request and reply objects, hooks, content-type parsing,
 * reply serialization) costs about as much as a cached state read, ~20 µs a request on the bench
 * machine, for a route that needs none of it when the request is well formed. Fastify documents
 * `serverFactory` for handling requests before its router; this is that.
 */

/** What the fast path needs from the server it is part of. */
export interface FastPathOptions {
  /** Constant-time API key check (the same one the Fastify routes use). */
  isKnownKey(key: string): boolean;
  /** The network the Host header names. */
  selectNetwork(host: string | undefined): DispatchTarget;
  /** Whether a media type (the Content-Type header) is one the RPC route accepts. */
  isAcceptedContentType(header: string | undefined): boolean;
  limits: DispatchLimits;
  maxBodyBytes: number;
  /** The server's logger (undefined: none). Per-request debug logging sends requests to Fastify. */
  logger: Logger | undefined;
  /** True once the server has begun closing: Fastify then answers (503) and ends keep-alive. */
  isClosing(): boolean;
  /** The next request id, shared with Fastify's `genReqId` so ids in the log stay unique. */
  nextRequestId(): string;
}

/** `/v3/<key>` with an optional trailing slash and query; keys as `loadApiKeys` accepts them. */
const RPC_URL = /^\/v3\/([A-Za-z0-9_-]+)\/?(?:\?.*)?$/;

const NO_LOG: DispatchLogger = { error() {}, warn() {}, debug() {} };

/**
 * Returns a request listener that answers the requests it takes and returns false, without
 * touching the request, for the ones it leaves to Fastify.
 */
export function createFastPath(o: FastPathOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const url = req.url ?? '';
    const match = RPC_URL.exec(url);
    if (match === null) return false;
    const headers = req.headers;
    const contentType = headers['content-type'];
    if (contentType !== 'application/json' && !o.isAcceptedContentType(contentType)) return false;
    const length = Number(headers['content-length']);
    if (!(length >= 0 && length <= o.maxBodyBytes) || headers['transfer-encoding'] !== undefined || headers.expect !== undefined) return false;
    if (o.isClosing() || o.logger?.isLevelEnabled('debug')) return false;
    if (!o.isKnownKey(match[1])) return false;

    const log = o.logger ? (new RequestLog(o.logger, o.nextRequestId()) as unknown as DispatchLogger) : NO_LOG;
    const target = o.selectNetwork(headers.host);
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    });
    // Node's parser never passes more than Content-Length bytes on as the body; fewer means the
    // client went away, and then there is nobody to answer.
    req.on('error', () => res.destroy());
    req.on('end', () => {
      if (received !== length) {
        res.destroy();
        return;
      }
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received);
      dispatch(body, target, log, o.limits).then(
        (out) => send(res, out, o.isClosing()),
        (err: unknown) => {
          // dispatch answers every method failure itself; reaching here is a bug in it.
          log.error({ err }, 'unexpected error in the HTTP fast path');
          sendInternalError(res);
        },
      );
    });
    return true;
  };
}

/** Writes a 200 answer as Fastify's `reply.type('application/json').send(out)` does. */
function send(res: ServerResponse, out: string | undefined, closing: boolean): void {
  if (res.destroyed || res.writableEnded) return;
  const headers: Record<string, string | number> =
    out === undefined ? { 'content-length': 0 } : { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(out) };
  if (closing) headers.connection = 'close';
  res.writeHead(200, headers);
  res.end(out);
}

function sendInternalError(res: ServerResponse): void {
  if (res.destroyed || res.headersSent) {
    res.destroy();
    return;
  }
  const body = '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}';
  res.writeHead(500, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
}

/**
 * The request-scoped logger dispatch gets: the request id is bound only when a line is written
 * (a pino child per request costs more than the rest of the fast path's bookkeeping).
 */
class RequestLog {
  constructor(
    private readonly logger: Logger,
    private readonly reqId: string,
  ) {}

  error(obj: object, msg?: string): void {
    this.logger.child({ reqId: this.reqId }).error(obj, msg);
  }

  warn(obj: object, msg?: string): void {
    this.logger.child({ reqId: this.reqId }).warn(obj, msg);
  }

  debug(obj: object, msg?: string): void {
    if (this.logger.isLevelEnabled('debug')) this.logger.child({ reqId: this.reqId }).debug(obj, msg);
  }
}
