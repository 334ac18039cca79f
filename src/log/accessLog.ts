import { type Logger, pino } from 'pino';

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
