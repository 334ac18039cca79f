import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createLogger } from '../../src/log/logger.js';
import { rawHttp, type StartedServer, startServer, TEST_API_KEY, wsClient } from '../helpers/rpcClient.js';
import { toyNetwork } from '../helpers/toyMethods.js';
import { until } from '../helpers/until.js';

/**
 * Regressions of the transport defects a fault sweep found: keys in logs through percent-encoded
 * paths and query strings, an unbounded WebSocket write buffer, SIGTERM resetting requests already
 * sent, transport errors without a JSON-RPC body, and a 413 lost to a connection reset (#20; for
 * any body framing, any size up to `transport.httpDiscardMaxBytes`, and while draining: #32).
 */

const port = (s: StartedServer) => Number(new URL(s.url).port);

/**
 * Writes raw bytes on a new connection; resolves with everything the server sent until `until`
 * matches or the connection ends. With `readAfterWrite`, nothing is read until the whole write is
 * done, as a client that writes its request in one go and then reads.
 */
function rawExchange(
  s: StartedServer,
  bytes: Buffer | string,
  until: (text: string) => boolean,
  readAfterWrite = false,
): Promise<{ text: string; error?: string }> {
  return new Promise((resolve) => {
    const sock = connect(port(s), '127.0.0.1');
    if (readAfterWrite) sock.pause();
    let text = '';
    let done = false;
    const finish = (error?: string) => {
      if (done) return;
      done = true;
      sock.destroy();
      resolve({ text, error });
    };
    sock.on('data', (d) => {
      text += d.toString('latin1');
      if (until(text)) finish();
    });
    sock.on('error', (e) => finish(e.message));
    sock.on('close', () => finish());
    sock.write(bytes, () => {
      if (readAfterWrite) sock.resume();
    });
  });
}

/** A full HTTP/1.1 response (headers and a body of its Content-Length) has arrived. */
const complete = (text: string): boolean => {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const length = Number(/content-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
  return text.length >= end + 4 + length;
};

describe('keys never reach the log, however the URL spells them (#20 defect 1)', () => {
  it.each(['debug', 'info'])('at %s', async (level) => {
    const SECRET = 'a-very-secret-key-1234';
    const WRONG = 'a-wrong-guessed-key-5678';
    const lines: string[] = [];
    const logger = createLogger({ level, destination: { write: (l: string) => void lines.push(l) } });
    const s = await startServer({ networks: [toyNetwork()], apiKeys: [SECRET], logger });
    const post = (path: string) =>
      rawHttp(`${s.url}${path}`, { headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"test_echo"}' });
    try {
      expect((await post(`/v%33/${SECRET}`)).status).toBe(200);
      expect((await post(`/%76%33/${SECRET}`)).status).toBe(200);
      expect((await post(`/v%33/${WRONG}`)).status).toBe(401);
      expect((await post(`/v3/${SECRET}?key=${SECRET}`)).status).toBe(200);
      expect((await post(`/v2/${SECRET}?key=${WRONG}`)).status).toBe(404);
      expect((await post(`/${SECRET}`)).status).toBe(404);
      const ws = await wsClient(s.url.replace('127.0.0.1', '127.0.0.1'), SECRET.replace('a', '%61'));
      await ws.call('test_echo', []);
      await ws.close();
    } finally {
      await s.close();
    }
    const log = lines.join('');
    expect(lines.length).toBeGreaterThan(5);
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain(WRONG);
    expect(log).not.toContain(SECRET.slice(2, 20));
  });
});

describe('transport defects', () => {
  let s: StartedServer;
  beforeAll(async () => {
    s = await startServer({ networks: [toyNetwork()], logger: false, limits: { wsMaxBufferedBytes: 512 * 1024, httpMaxBodyBytes: 5 * 1024 * 1024 } });
  });
  afterAll(() => s?.close());

  it('a WebSocket client that never reads is closed with 1008 once its unread answers pass the limit (#20 defect 2)', async () => {
    const socket = new WebSocket(`${s.url.replace('http', 'ws')}/ws/v3/${TEST_API_KEY}`);
    await new Promise((r) => socket.once('open', r));
    const closed = new Promise<{ code: number; reason: string }>((r) => socket.once('close', (code, reason) => r({ code, reason: reason.toString() })));
    // Stop reading: the kernel buffers fill, then the server's.
    (socket as unknown as { _socket: import('node:net').Socket })._socket.pause();
    const big = 'x'.repeat(8 * 1024);
    for (let i = 0; i < 2000; i++) socket.send(`{"jsonrpc":"2.0","id":${i},"method":"test_echo","params":["${big}"]}`);
    // Until the server starts closing it (its close frame waits behind the unread answers).
    await until(
      'the server closing the reader that never reads',
      () => [...s.app.websocketServer.clients].at(-1)?.readyState,
      (state) => state === WebSocket.CLOSING,
    );
    (socket as unknown as { _socket: import('node:net').Socket })._socket.resume();
    const { code, reason } = await closed;
    expect(code).toBe(1008);
    expect(reason).toBe('answers left unread past the server limit');
    const metrics = (await rawHttp(`${s.url}/metrics`, { method: 'GET' })).text;
    expect(metrics).toMatch(/^tracenode_websocket_closed_total\{reason="slow_consumer"\} 1$/m);
    // Frames that arrived after the close were not run: far fewer than the 2,000 sent were answered.
    const ran = Number(/^tracenode_requests_total\{network="[^"]+",method="test_echo",transport="ws",outcome="ok"\} (\d+)$/m.exec(metrics)?.[1]);
    expect(ran).toBeLessThan(2000);
  });

  it('HTTP/1.1 without a Host header: 400 with a JSON-RPC body (#20 defect 8)', async () => {
    const { text } = await rawExchange(s, `POST /v3/${TEST_API_KEY} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`, complete);
    expect(text.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(text.slice(text.indexOf('\r\n\r\n') + 4)).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"missing Host header"}}');
  });

  it('a WebSocket upgrade with a bad Sec-WebSocket-Version: 400 with a JSON-RPC body (#20 defect 8)', async () => {
    const upgrade = `GET /ws/v3/${TEST_API_KEY} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 12\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`;
    const { text } = await rawExchange(s, upgrade, complete);
    expect(text.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(text).toMatch(/\r\nsec-websocket-version: 13\r\n/i);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'invalid WebSocket upgrade: Sec-WebSocket-Version must be 13' },
    });
  });

  it('headers and a 6 MiB body written in one go get the 413, not a reset (#20 defect 9)', async () => {
    for (let i = 0; i < 5; i++) {
      const body = Buffer.alloc(6 * 1024 * 1024, 0x61);
      const head = `POST /v3/${TEST_API_KEY} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      const { text, error } = await rawExchange(s, Buffer.concat([Buffer.from(head), body]), complete, true);
      expect(error).toBeUndefined();
      expect(text.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
      expect(text.slice(text.indexOf('\r\n\r\n') + 4)).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32005,"message":"content length too large"}}');
    }
  });
});

/** Headers of a POST whose body follows: Content-Length, or chunked (the body as one chunk). */
function oversize(size: number, chunked: boolean): Buffer {
  const head = chunked
    ? `POST /v3/${TEST_API_KEY} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${size.toString(16)}\r\n`
    : `POST /v3/${TEST_API_KEY} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), Buffer.alloc(size, 0x61), Buffer.from(chunked ? '\r\n0\r\n\r\n' : '')]);
}

const TOO_LARGE = '{"jsonrpc":"2.0","id":null,"error":{"code":-32005,"message":"content length too large"}}';

describe('a body over the limit always gets its 413, read and discarded first (#32)', () => {
  let s: StartedServer;
  beforeAll(async () => {
    s = await startServer({ networks: [toyNetwork()], logger: false, limits: { httpMaxBodyBytes: 16 * 1024 } });
  });
  afterAll(() => s?.close());

  /** Sends `count` bodies, `parallel` connections at a time, each written whole before reading; counts the outcomes. */
  async function eager(count: number, parallel: number, body: (i: number) => Buffer): Promise<Record<string, number>> {
    const seen: Record<string, number> = {};
    let next = 0;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        for (let i = next++; i < count; i = next++) {
          const { text, error } = await rawExchange(s, body(i), complete, true);
          const outcome = error ?? (text.slice(text.indexOf('\r\n\r\n') + 4) === TOO_LARGE ? text.split('\r\n')[0] : text.slice(0, 100));
          seen[outcome] = (seen[outcome] ?? 0) + 1;
        }
      }),
    );
    return seen;
  }

  it('1,000 bodies of 1 MiB (half chunked) written in one go: 1,000 × 413 with the JSON-RPC error', async () => {
    expect(await eager(1000, 4, (i) => oversize(1024 * 1024, i % 2 === 1))).toEqual({ 'HTTP/1.1 413 Payload Too Large': 1000 });
  });

  it('chunked bodies larger than the socket buffers: 413, not a reset (closing at once made the write fail: EPIPE)', async () => {
    expect(await eager(10, 2, () => oversize(8 * 1024 * 1024, true))).toEqual({ 'HTTP/1.1 413 Payload Too Large': 10 });
  });

  it('while the server drains for a shutdown, too', async () => {
    const network = toyNetwork();
    const d = await startServer({ networks: [network], logger: false, limits: { httpMaxBodyBytes: 16 * 1024 } });
    // A call in flight for as long as the test needs: the drain waits for it.
    const busy = rawHttp(`${d.url}/v3/${TEST_API_KEY}`, {
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"test_hold"}',
    });
    await until(
      'the held call running',
      () => network.context.holds.running,
      (n) => n === 1,
    );
    const closed = d.close();
    await until(
      'the drain begun',
      async () => (await rawHttp(`${d.url}/health`, { method: 'GET' })).status,
      (status) => status === 503,
    );
    const seen: Record<string, number> = {};
    for (let i = 0; i < 10; i++) {
      const { text, error } = await rawExchange(d, oversize(8 * 1024 * 1024, i % 2 === 0), complete, true);
      const outcome = error ?? text.split('\r\n')[0];
      seen[outcome] = (seen[outcome] ?? 0) + 1;
    }
    expect(seen).toEqual({ 'HTTP/1.1 413 Payload Too Large': 10 });
    network.context.holds.release();
    expect((await busy).status).toBe(200);
    await closed;
  });

  it('past transport.httpDiscardMaxBytes the connection is closed without reading the rest', async () => {
    const d = await startServer({ networks: [toyNetwork()], logger: false, limits: { httpMaxBodyBytes: 16 * 1024, httpDiscardMaxBytes: 64 * 1024 } });
    try {
      const sock = connect(port(d), '127.0.0.1');
      const closed = new Promise<void>((resolve) => sock.once('close', () => resolve()));
      sock.on('error', () => {});
      let text = '';
      sock.on('data', (b) => {
        text += b.toString('latin1');
      });
      // A body of 64 MiB announced, 1 MiB sent: the server answers, discards 64 KiB more, then closes.
      sock.write(`POST /v3/${TEST_API_KEY} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n`);
      sock.write(Buffer.alloc(1024 * 1024, 0x61));
      await closed;
      expect(text.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    } finally {
      await d.close();
    }
  });
});

describe('shutdown answers the requests already sent (#20 defect 3)', () => {
  it('50 keep-alive clients sending without pause: every request on an accepted connection is answered; none is reset or 503', async () => {
    const s = await startServer({ networks: [toyNetwork()], logger: false, apiKeys: [TEST_API_KEY] });
    const agent = new Agent({ keepAlive: true, maxSockets: 50 });
    const outcomes = new Map<string, number>();
    const count = (what: string) => outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
    let stop = false;
    const call = () =>
      new Promise<string>((resolve) => {
        const req = httpRequest(`${s.url}/v3/${TEST_API_KEY}`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
          let text = '';
          res.on('data', (d) => {
            text += d;
          });
          res.on('end', () => resolve(res.statusCode === 200 && text === '{"jsonrpc":"2.0","id":1,"result":0}' ? 'answered' : `HTTP ${res.statusCode}`));
          res.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
        });
        req.on('error', (e: NodeJS.ErrnoException) => resolve(`${e.code ?? e.message}${req.reusedSocket ? ' (reused)' : ' (new)'}`));
        req.end('{"jsonrpc":"2.0","id":1,"method":"test_sleep","params":[0]}');
      });
    const client = async () => {
      while (!stop) {
        const outcome = await call();
        count(outcome);
        if (outcome.endsWith('(new)')) return; // the listener is gone
      }
    };
    const clients = Array.from({ length: 50 }, client);
    await until(
      'the clients in full flow',
      () => outcomes.get('answered') ?? 0,
      (n) => n >= 200,
    );
    await s.server.shutdown();
    stop = true;
    await Promise.all(clients);
    agent.destroy();
    const seen = Object.fromEntries(outcomes);
    // Every request on a connection the server had accepted is answered (its answer closes the
    // connection once shutdown began); a new connection after the listener stopped is refused —
    // or reset by the kernel if it was still queued, unaccepted, when the listener closed.
    expect(seen.answered).toBeGreaterThanOrEqual(50);
    for (const outcome of Object.keys(seen)) expect(['answered', 'ECONNREFUSED (new)', 'ECONNRESET (new)']).toContain(outcome);
  });
});
