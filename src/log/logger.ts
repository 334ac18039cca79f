import { type DestinationStream, type Logger, type LoggerOptions as PinoOptions, pino } from 'pino';
import { chunkedStdout } from './chunkedStdout.js';

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** pino level name (`trace` … `fatal`, or `silent`); default `info`. */
  level?: string;
  /** Where JSON lines go; default stdout. Tests pass a stream that collects lines. */
  destination?: DestinationStream;
  /**
   * Stdout only: lines are written in chunks of this many bytes (0, the default: each line at
   * once), at least every `flushMs` and at exit; past `maxQueuedBytes` waiting for a slow reader,
   * lines are dropped. The `server.log*` settings.
   */
  buffer?: { bytes: number; flushMs: number; maxQueuedBytes: number };
}

/**
 * `/v3/<key>` (also inside `/ws/v3/<key>`): the API key is the path segment after `/v3/`.
 * Case-insensitive and tolerant of doubled slashes, so `/V3//key` is caught too.
 */
const KEY_IN_URL = /(\/v3\/+)[^/?#]+/gi;
/** The same inside a serialized JSON line: the segment also ends at a quote, backslash or space. */
const KEY_IN_LINE = /(\/v3\/+)[^/?#"\\\s]+/gi;
const REDACTED = '<redacted>';

/**
 * Replaces the API key in a request URL with `<redacted>`:
 * `/v3/abc?x=1` → `/v3/<redacted>?x=1`, `/ws/v3/abc` → `/ws/v3/<redacted>`.
 */
export function redactUrl(url: string): string {
  return url.replace(KEY_IN_URL, `$1${REDACTED}`);
}

/** Logged shape of a request: method, redacted URL, host and peer address; never headers. */
function serializeRequest(req: unknown): Record<string, unknown> {
  const r = (req ?? {}) as {
    id?: unknown;
    method?: string;
    url?: string;
    ip?: string;
    headers?: Record<string, unknown>;
    socket?: { remoteAddress?: string };
  };
  return {
    id: r.id,
    method: r.method,
    url: typeof r.url === 'string' ? redactUrl(r.url) : undefined,
    host: r.headers?.host,
    remoteAddress: r.ip ?? r.socket?.remoteAddress,
  };
}

/** Logged shape of a response: the status code only. */
function serializeResponse(res: unknown): Record<string, unknown> {
  const r = (res ?? {}) as { statusCode?: number };
  return { statusCode: r.statusCode };
}

/**
 * Wraps a destination so that every line is scrubbed of `/v3/<key>` before it is written. The
 * serializers above already redact the fields we log; this catches a URL that some library puts
 * into a message or an unexpected field.
 */
function scrubbing(dest: DestinationStream): DestinationStream {
  const out = dest as DestinationStream & { flush?: (cb?: (err?: Error) => void) => void };
  const wrapped: DestinationStream & { flush?: (cb?: (err?: Error) => void) => void } = {
    write(line: string) {
      out.write(line.includes('3/') ? line.replace(KEY_IN_LINE, `$1${REDACTED}`) : line);
    },
  };
  if (typeof out.flush === 'function') wrapped.flush = (cb) => out.flush!(cb);
  return wrapped;
}

/**
 * Creates the process logger (pino, JSON lines). Request URLs are redacted by the `req` and `url`
 * serializers, and every line is scrubbed of `/v3/<key>` as a second guard: an API key must never
 * reach a log file.
 */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const options: PinoOptions = {
    level: opts.level ?? 'info',
    serializers: {
      req: serializeRequest,
      res: serializeResponse,
      err: pino.stdSerializers.err,
      url: (url: unknown) => (typeof url === 'string' ? redactUrl(url) : url),
    },
  };
  return pino(options, scrubbing(opts.destination ?? stdout(opts.buffer)));
}

/**
 * Stdout as pino writes it: asynchronously (a slow reader never stalls requests), and with a
 * buffer, in chunks (`chunkedStdout.ts`): a write per access line costs more than the rest of a
 * cached read. The chunks are written at exit, and at least every `flushMs` on a quiet node.
 */
function stdout(buffer: LoggerOptions['buffer']): DestinationStream {
  if (buffer === undefined || buffer.bytes === 0) return pino.destination({ dest: 1, sync: false, maxLength: buffer?.maxQueuedBytes });
  const sink = pino.destination({ dest: 1, sync: false, maxLength: buffer.maxQueuedBytes });
  return chunkedStdout(sink, buffer.bytes, buffer.flushMs);
}

/**
 * The logger of one request on the HTTP fast path (its error, warn and debug lines): the request
 * id is bound only when a line is written, since a pino child per request costs more than the
 * rest of the fast path's bookkeeping. Access lines are not written here (`accessLog.ts`).
 */
export class RequestLog {
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
