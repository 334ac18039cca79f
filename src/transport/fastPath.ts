import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Pipeline, PipelineReply, Session } from '../pipeline/pipeline.js';
import type { DispatchLimits, DispatchLogger } from '../rpc/dispatch.js';
import type { RpcError } from '../rpc/errors.js';
import { corsHeaders } from './cors.js';
import type { HttpEntry } from './drain.js';
import type { Entered, Entrance } from './entrance.js';
import { literalRpcKey, routeTemplate } from './routes.js';

/**
 * The HTTP transport of the ordinary JSON-RPC POST, served straight from Node's HTTP server:
 * `POST /v3/<key>` (the literal path), an accepted JSON media type and a Content-Length within the
 * body limit, no Expect or Transfer-Encoding. Its session comes from the entrance
 * (`entrance.ts`), and its body goes to the request pipeline, which writes its access line: the
 * same entrance and pipeline the Fastify routes and WebSocket use. A key the entrance refuses gets
 * its line from the same access log (`pipeline.access`). Everything else (other paths,
 * percent-encoded paths, chunked bodies, every transport error the router answers) goes to
 * Fastify's routes.
 *
 * Why: Fastify's per-request machinery (request and reply objects, hooks, content-type parsing,
 * reply serialization) costs about as much as a cached state read, ~20 µs a request, for a route
 * that needs none of it. Fastify documents `serverFactory` for handling requests before its
 * router; this is that.
 */

export interface FastPathOptions {
  pipeline: Pipeline;
  entrance: Entrance;
  isAcceptedContentType(header: string | undefined): boolean;
  limits: DispatchLimits;
  maxBodyBytes: number;
  /** The logger of one request (its id bound when a line is written). */
  log(): DispatchLogger;
  /** True once shutdown has begun: answers then end their keep-alive connection. */
  isClosing(): boolean;
  /**
   * Counts requests in progress, so shutdown can wait for them (`drain.ts`); `onClose` runs when
   * `res` closes. The entry takes the body and the abort, for an answer at the drain's cutoff.
   */
  track(res: ServerResponse, onClose?: () => void): HttpEntry;
}

/**
 * Returns a request listener that answers the requests it takes and returns false, without
 * touching the request, for the ones it leaves to Fastify.
 */
export function createFastPath(o: FastPathOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const key = literalRpcKey(req.url ?? '');
    if (key === undefined) return false;
    const headers = req.headers;
    const contentType = headers['content-type'];
    if (contentType !== 'application/json' && !o.isAcceptedContentType(contentType)) return false;
    const length = Number(headers['content-length']);
    if (!(length >= 0 && length <= o.maxBodyBytes) || headers['transfer-encoding'] !== undefined || headers.expect !== undefined) return false;

    // One listener for both: the request is over, and if no answer was sent the client went away.
    let session: Session | undefined;
    const entry = o.track(res, () => {
      if (!res.writableFinished) session?.gone.abort();
    });
    entry.abort = () => session?.gone.abort();
    const entered = o.entrance.enter('http', key, headers, req.socket);
    if (entered instanceof Promise)
      entered.then(
        (e) => {
          session = serve(o, req, res, e, length, entry);
          // The client may have gone while its JWT was checked.
          if (res.closed) session?.gone.abort();
        },
        () => sendInternalError(res),
      );
    else session = serve(o, req, res, entered, length, entry);
    return true;
  };
}

/** Answers a refused key, or reads the body of an entered session and runs it; returns the session. */
function serve(o: FastPathOptions, req: IncomingMessage, res: ServerResponse, entered: Entered, length: number, entry: HttpEntry): Session | undefined {
  if (!entered.ok) {
    req.resume(); // the body is not wanted; read it so the answer is not lost to a reset
    sendError(res, entered.error, corsHeaders(undefined, req.headers.origin), o.isClosing());
    o.pipeline.access.route({ method: 'POST', route: routeTemplate('rpc'), status: entered.error.httpStatus });
    return undefined;
  }
  const session = entered.session;
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
    entry.body = body;
    const log = o.log();
    o.pipeline.handle(session, body, o.limits, log).then(
      (reply) => send(res, reply, corsHeaders(session.policy, session.origin), o.isClosing()),
      (err: unknown) => {
        // The pipeline answers every call's failure itself; reaching here is a bug in it.
        log.error({ err }, 'unexpected error in the HTTP fast path');
        sendInternalError(res);
      },
    );
  });
  return session;
}

/**
 * Writes the pipeline's answer. The headers go to `writeHead` as one flat list of names and
 * values, which Node writes as given, without building the response's header object first.
 */
export function send(res: ServerResponse, reply: PipelineReply, cors: Readonly<Record<string, string>>, closing: boolean): void {
  if (res.destroyed || res.writableEnded) return;
  const out = reply.body;
  const headers: Array<string | number> =
    out === undefined ? ['content-length', 0] : ['content-type', 'application/json; charset=utf-8', 'content-length', Buffer.byteLength(out)];
  for (const name in cors) headers.push(name, cors[name]);
  if (reply.retryAfter !== undefined) headers.push('retry-after', Math.max(1, Math.ceil(reply.retryAfter)));
  if (closing) headers.push('connection', 'close');
  res.writeHead(reply.status, headers as unknown as OutgoingHttpHeaders);
  res.end(out);
}

/** Writes a transport-level error (auth) with its HTTP status and a JSON-RPC error body. */
export function sendError(res: ServerResponse, error: RpcError, cors: Readonly<Record<string, string>>, closing: boolean): void {
  const body = `{"jsonrpc":"2.0","id":null,"error":${JSON.stringify(error.toJSON())}}`;
  send(res, { status: error.httpStatus, body }, cors, closing);
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
