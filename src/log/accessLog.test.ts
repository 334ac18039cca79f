import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type AccessLine, accessLogWriter, createAccessLog } from './accessLog.js';
import { createLogger } from './logger.js';

function collecting(level = 'info', time = true) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split(/(?<=\n)/));
      cb();
    },
  });
  const logger = pino({ level, ...(time ? { timestamp: () => ',"time":1795000000000' } : {}) }, sink);
  return { logger, lines };
}

const LINE: AccessLine = {
  keyId: 'team "a" \\ ü \u0001',
  network: 'mainnet',
  transport: 'ws',
  methods: ['eth_call', '(unknown)', '…3 more'],
  status: 429,
  ms: 0.123,
  bytesIn: 120,
  bytesOut: 0,
};

describe('access log lines', () => {
  it('are the line logger.info(fields, "request") writes, byte for byte', async () => {
    const viaPino = collecting();
    viaPino.logger.info(LINE, 'request');
    const direct = collecting();
    accessLogWriter(direct.logger)(LINE);
    expect(direct.lines).toHaveLength(1);
    expect(direct.lines).toEqual(viaPino.lines);
  });

  it('name the refusals of the message when there were some, as pino writes them; a field left undefined is left out', () => {
    for (const line of [
      { ...LINE, refused: ['rate', 'concurrency'] },
      { ...LINE, refused: undefined },
    ]) {
      const viaPino = collecting();
      viaPino.logger.info(line, 'request');
      const direct = collecting();
      accessLogWriter(direct.logger)(line);
      expect(direct.lines).toEqual(viaPino.lines);
    }
    const { logger, lines } = collecting();
    accessLogWriter(logger)({ ...LINE, refused: ['quota'] });
    accessLogWriter(logger)({ ...LINE, refused: undefined });
    expect(lines.map((l) => JSON.parse(l).refused)).toEqual([['quota'], undefined]);
  });

  it('carry the bindings of a child logger (pid, hostname, or anything bound)', () => {
    const { logger, lines } = collecting();
    accessLogWriter(logger.child({ worker: 2 }))(LINE);
    const parsed = JSON.parse(lines[0]);
    expect([parsed.worker, parsed.pid, parsed.msg, parsed.keyId]).toEqual([2, process.pid, 'request', LINE.keyId]);
  });

  it('are not written below info, and follow a level change', () => {
    const { logger, lines } = collecting('warn');
    const write = accessLogWriter(logger);
    write(LINE);
    expect(lines).toEqual([]);
    logger.level = 'info';
    write(LINE);
    expect(lines).toHaveLength(1);
  });

  it('from the process logger carry no API key (the scrubbing destination still applies)', () => {
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (l: string) => lines.push(l) } });
    accessLogWriter(logger)({ ...LINE, keyId: 'see /v3/secret-key-123' });
    expect(lines[0]).toContain('"keyId":"see /v3/<redacted>"');
  });
});

describe('the access log', () => {
  it('writes a message line as accessLogWriter does, only at info and above', () => {
    const direct = collecting();
    accessLogWriter(direct.logger)(LINE);
    const { logger, lines } = collecting();
    const access = createAccessLog(logger);
    expect(access.enabled()).toBe(true);
    access.message(LINE);
    expect(lines).toEqual(direct.lines);
    logger.level = 'warn';
    expect(access.enabled()).toBe(false);
    expect(createAccessLog(undefined).enabled()).toBe(false);
  });

  it('writes the line of a request answered before the pipeline as logger.info(fields, "request") does, at warn for a 5xx', () => {
    for (const line of [
      { method: 'GET', route: '/health', status: 200, ms: 0.5 },
      { method: 'GET', route: '/health', status: 503, ms: 1.25 },
      { method: 'POST', route: '/v3/:key', status: 401 },
    ]) {
      const viaPino = collecting();
      viaPino.logger[line.status >= 500 ? 'warn' : 'info'](line, 'request');
      const direct = collecting();
      createAccessLog(direct.logger).route(line);
      expect(direct.lines).toEqual(viaPino.lines);
    }
  });

  it('writes a request line through the request’s logger when given (its bindings: the request id), following its level', () => {
    const { logger, lines } = collecting('warn');
    const access = createAccessLog(logger);
    access.route({ method: 'GET', route: '/metrics', status: 200, ms: 1 }, logger.child({ reqId: 'req-7' }));
    access.route({ method: 'GET', route: '/health', status: 503, ms: 1 }, logger.child({ reqId: 'req-8' }));
    expect(lines.map((l) => [JSON.parse(l).reqId, JSON.parse(l).level])).toEqual([['req-8', 40]]);
    // Without a logger of its own, the request's logger still decides (a Fastify request's logger).
    const written: unknown[] = [];
    createAccessLog(undefined).route({ method: 'GET', route: '/health', status: 200, ms: 1 }, { info: (o) => written.push(o), warn() {} });
    expect(written).toEqual([{ method: 'GET', route: '/health', status: 200, ms: 1 }]);
  });
});
