import { type Logger, pino } from 'pino';

/**
 * The access log: one line at info for every HTTP request and every WebSocket message, written
 * here and nowhere else. Two shapes, both with `msg: "request"`:
 * - a message the request pipeline answered (an HTTP request on either path, a WebSocket frame):
 *   {@link AccessLine}, written by `pipeline.handle` once the answer is ready;
 * - an HTTP request answered before the pipeline (a refused key on the fast path, and every answer
 *   Fastify sends itself: 401, 404, 405, 413, 415, 426, preflights, /health, /metrics):
 *   {@link RouteLine}, its route's template, never its URL (a URL carries the key).
 */

/** What one access-log line says about a message. */
export interface AccessLine {
  readonly keyId: string;
  readonly network: string;
  readonly transport: string;
  /** Method names, at most a few, with `…N more` when there were more. */
  readonly methods: readonly string[];
  readonly status: number;
  readonly ms: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  /**
   * Why calls of the message were refused before running (the refusals' `reason`: `policy`,
   * `rate`, `quota`, `concurrency`), each once; absent when none was. The line leaves it out then.
   */
  readonly refused?: readonly string[];
}

/** The level the access log writes at. */
const ACCESS_LEVEL = 'info';
const ACCESS_LEVEL_VALUE = 30;

type PinoInternals = {
  [pino.symbols.streamSym]?: { write(line: string): void };
  [pino.symbols.chindingsSym]?: string;
  [pino.symbols.timeSym]?: () => string;
};

/**
 * Returns the function that writes access lines to `logger`: the line `logger.info(line, 'request')`
 * writes — level, time, the logger's bindings, the fields in order, `msg` — built directly.
 *
 * Why: it is written on every request, and pino's general path (serializers, formatters, a
 * stringify per field) costs ~4 µs of the ~50 µs a cached read takes over HTTP; this costs ~1 µs.
 * pino documents `pino.symbols` for this kind of use. A logger without them (a stand-in) gets
 * `logger.info`.
 */
export function accessLogWriter(logger: Logger): (line: AccessLine) => void {
  const internals = logger as unknown as PinoInternals;
  const stream = internals[pino.symbols.streamSym];
  const chindings = internals[pino.symbols.chindingsSym];
  const time = internals[pino.symbols.timeSym];
  if (stream === undefined || chindings === undefined || time === undefined || logger.levels.values[ACCESS_LEVEL] !== ACCESS_LEVEL_VALUE) {
    return (line) => logger.info(line, 'request');
  }
  return (line) => {
    if (!logger.isLevelEnabled(ACCESS_LEVEL)) return;
    stream.write(
      `{"level":${ACCESS_LEVEL_VALUE}${time()}${chindings},"keyId":${JSON.stringify(line.keyId)},"network":${JSON.stringify(line.network)},"transport":${JSON.stringify(line.transport)},"methods":${JSON.stringify(line.methods)},"status":${line.status},"ms":${line.ms},"bytesIn":${line.bytesIn},"bytesOut":${line.bytesOut}${line.refused === undefined ? '' : `,"refused":${JSON.stringify(line.refused)}`},"msg":"request"}\n`,
    );
  };
}

/** What the access line of an HTTP request answered before the pipeline says. */
export interface RouteLine {
  readonly method: string;
  /** The route's template (`/v3/:key`), never the URL. */
  readonly route: string;
  readonly status: number;
  /** Absent on the fast path's key refusals, whose line carries no timing. */
  readonly ms?: number;
}

/** The part of a logger a route line needs (a pino logger, or a Fastify request's child of one). */
export interface RouteLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  isLevelEnabled?(level: string): boolean;
}

/** The access log's one writer. */
export interface AccessLog {
  /** Whether message lines are written (a logger at info): the pipeline gathers a line's fields only then. */
  enabled(): boolean;
  /** Writes the line of a message the pipeline answered. */
  message(line: AccessLine): void;
  /**
   * Writes the line of an HTTP request answered before the pipeline, through `log` when given (a
   * Fastify request's logger, which binds its `reqId`), at warn for a 5xx and info otherwise.
   */
  route(line: RouteLine, log?: RouteLogger): void;
}

/**
 * The access log of a server. Without a logger no message line is written, and a route line only
 * through the request's own logger (Fastify's, which then writes nothing either).
 */
export function createAccessLog(logger: Logger | undefined): AccessLog {
  if (logger === undefined) return { enabled: () => false, message() {}, route: (line, log) => writeRoute(line, log) };
  const write = accessLogWriter(logger);
  return {
    enabled: () => logger.isLevelEnabled(ACCESS_LEVEL),
    message: write,
    route: (line, log) => writeRoute(line, log ?? logger),
  };
}

function writeRoute(line: RouteLine, log: RouteLogger | undefined): void {
  if (log === undefined) return;
  const level = line.status >= 500 ? 'warn' : ACCESS_LEVEL;
  // A logger without isLevelEnabled (a stand-in) decides itself.
  if (log.isLevelEnabled?.(level) ?? true) log[level](line, 'request');
}
