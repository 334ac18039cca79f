import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type AccessLine, accessLogWriter } from './accessLog.js';
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
