import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { InternalError, InvalidRequestError, LimitExceededError, ResourceNotFoundError, RpcError } from '../rpc/errors.js';

/**
 * Transport-level failures (auth, path, method, size, media type, malformed HTTP) answered with
 * their HTTP status and a JSON-RPC error body, and the media types a JSON-RPC POST may carry.
 */

/** Media types geth accepts for a JSON-RPC POST (parameters such as `charset` are ignored). */
export const ACCEPTED_CONTENT_TYPES = ['application/json', 'application/json-rpc', 'application/jsonrequest'];

/** How much of a refused body is read and thrown away (`transport.httpDiscard*`). */
export interface DiscardLimits {
  maxBytes: number;
  idleMs: number;
}

/**
 * Writes a transport-level failure as a JSON-RPC error body with its HTTP status. RpcErrors keep
 * their `httpStatus`; Fastify's errors are mapped by code; anything unknown is a 500 whose
 * details go to the log only. Expected failures are not logged here (the response line shows
 * them); unexpected ones are logged at error with their stack. A refused body (413) is read and
 * discarded up to `discard`'s bounds ({@link discardBody}).
 */
export function sendTransportError(req: FastifyRequest, reply: FastifyReply, err: unknown, discard?: DiscardLimits): void {
  const { status, error } = classify(err, req.log);
  // A refused WebSocket upgrade: nothing else may follow on this connection.
  if (req.headers.upgrade !== undefined) reply.raw.once('finish', () => req.raw.socket.destroy());
  if (status === 413 && discard !== undefined) {
    // Fastify asks to close the connection after a body it refused, but the client may still be
    // writing it: closing now would reset the connection before the client reads this answer.
    reply.removeHeader('connection');
    discardBody(req.raw, discard);
  }
  // A browser page may read the error (CORS), unless an allowlist already decided otherwise.
  if (!reply.hasHeader('access-control-allow-origin') && !reply.hasHeader('vary')) reply.header('access-control-allow-origin', '*');
  reply
    .code(status)
    .type('application/json')
    .send(`{"jsonrpc":"2.0","id":null,"error":${JSON.stringify(error.toJSON())}}`);
}

/**
 * Reads and throws away the rest of a refused body, as nginx's lingering close does, so that a
 * client still writing it reads the 413 rather than a reset (closing a connection with unread
 * bytes resets it). Once the body has ended the connection is an ordinary idle keep-alive one;
 * past `maxBytes` more, or `idleMs` without a byte, it is closed.
 */
export function discardBody(req: IncomingMessage, limits: DiscardLimits): void {
  let seen = 0;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    clearTimeout(timer);
    req.off('data', onData);
  };
  const giveUp = () => {
    stop();
    req.socket.destroy();
  };
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(giveUp, limits.idleMs).unref();
  };
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > limits.maxBytes) giveUp();
    else arm();
  };
  if (req.complete) return;
  // A 'data' listener makes the body flow: each chunk is dropped once counted.
  req.on('data', onData);
  req.once('end', stop);
  req.once('close', stop);
  arm();
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
export function writeClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
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

export function unsupportedMediaType(): RpcError {
  return new InvalidRequestError('invalid content type, only application/json is supported', 415);
}

export function isAcceptedContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const type = header.split(';')[0].trim().toLowerCase();
  return ACCEPTED_CONTENT_TYPES.includes(type);
}
