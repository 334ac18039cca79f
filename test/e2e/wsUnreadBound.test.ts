import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { rawHttp, type StartedServer, startServer, TEST_API_KEY } from '../helpers/rpcClient.js';
import { toyNetwork, toyNotification } from '../helpers/toyMethods.js';
import { paced, until } from '../helpers/until.js';

/**
 * The WebSocket memory bound counts what a client has left unread, not the frame being written
 * (#27 part 3): one answer or notification larger than `transport.wsMaxBufferedBytes` (16 MiB) or
 * `subscriptions.maxBacklogBytes` (8 MiB) reaches a client that reads it, and the connection stays
 * open; a client that stops reading is still closed with 1008, once no byte of that frame has been
 * taken for `transport.wsWriteStallMs`.
 */

const BIG = 40_000_000;
const BIG_NOTIFICATION = 20_000_000;
const STALL_MS = 200;
/** The stall period of the server a slow reader reads from: far above its pauses (150 ms), however busy the machine, and shorter than its whole read. */
const PATIENT_STALL_MS = 1000;

const call = (id: number, method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
const tcp = (socket: WebSocket) => (socket as unknown as { _socket: Socket })._socket;

/**
 * A raw client on `s`: its messages in order (`next`; `closed <code> <reason>` once the connection
 * has closed and none is left), and how it closed.
 */
async function open(s: StartedServer) {
  const socket = new WebSocket(`${s.url.replace('http', 'ws')}/ws/v3/${TEST_API_KEY}`);
  await new Promise((r) => socket.once('open', r));
  const queued: string[] = [];
  const waiting: Array<(m: string) => void> = [];
  let end: string | undefined;
  socket.on('message', (data) => {
    const text = data.toString();
    const waiter = waiting.shift();
    if (waiter) waiter(text);
    else queued.push(text);
  });
  const closed = new Promise<{ code: number; reason: string }>((r) =>
    socket.once('close', (code, reason) => {
      end = `closed ${code} ${reason.toString()}`;
      for (const waiter of waiting.splice(0)) waiter(end);
      r({ code, reason: reason.toString() });
    }),
  );
  const next = () => new Promise<string>((r) => (queued.length > 0 ? r(queued.shift()!) : end !== undefined ? r(end) : waiting.push(r)));
  return { socket, next, closed };
}

/** The server's side of the newest connection to `s`. */
const serverSide = (s: StartedServer): WebSocket => [...s.app.websocketServer.clients].at(-1)!;

const metrics = async (s: StartedServer) => (await rawHttp(`${s.url}/metrics`, { method: 'GET' })).text;

describe('one frame larger than the unread limit (#27 part 3)', () => {
  let defaults: StartedServer;
  let quick: StartedServer;
  let patient: StartedServer;
  beforeAll(async () => {
    // Every limit at its default; the other server only stalls sooner, so the tests stay short.
    defaults = await startServer({ networks: [toyNetwork()], logger: false });
    // A closed socket gets as long as a loaded machine needs to read what was queued (the grace
    // period's own test uses a short one).
    quick = await startServer({ networks: [toyNetwork()], logger: false, limits: { wsWriteStallMs: STALL_MS, wsSlowConsumerGraceMs: 120_000 } });
    patient = await startServer({ networks: [toyNetwork()], logger: false, limits: { wsWriteStallMs: PATIENT_STALL_MS } });
  });
  afterAll(async () => {
    await defaults?.close();
    await quick?.close();
    await patient?.close();
  });

  it('a 40 MB answer reaches a client that reads it whole, and the connection goes on (default limits)', async () => {
    const c = await open(defaults);
    c.socket.send(call(1, 'test_bigAnswer', [BIG]));
    const answer = await c.next();
    expect(answer.length).toBe(BIG + '{"jsonrpc":"2.0","id":1,"result":""}'.length);
    expect(answer === `{"jsonrpc":"2.0","id":1,"result":"${'x'.repeat(BIG)}"}`).toBe(true);
    c.socket.send(call(2, 'test_echo', ['after']));
    expect(await c.next()).toBe('{"jsonrpc":"2.0","id":2,"result":["after"]}');
    expect(c.socket.readyState).toBe(WebSocket.OPEN);
    expect(await metrics(defaults)).not.toMatch(/tracenode_websocket_closed_total\{reason="slow_consumer"\}/);
    c.socket.close();
    expect((await c.closed).code).toBe(1005);
  });

  it('a client that reads it slowly, in bursts, is not closed while bytes move', async () => {
    const c = await open(patient);
    const reader = tcp(c.socket);
    reader.pause();
    c.socket.send(call(1, 'test_bigAnswer', [BIG]));
    // Read for 5 ms, then nothing for 150 ms (less than the stall period), until the answer is in.
    let done = false;
    const answer = c.next().then((text) => {
      done = true;
      return text;
    });
    let bursts = 0;
    while (!done) {
      await paced(150); // the client's pause
      reader.resume();
      await paced(5); // the client's read
      reader.pause();
      bursts++;
    }
    reader.resume();
    expect((await answer).length).toBe(BIG + '{"jsonrpc":"2.0","id":1,"result":""}'.length);
    // The read took longer than one stall period: the period restarts whenever bytes move.
    expect(bursts * 150).toBeGreaterThan(PATIENT_STALL_MS);
    c.socket.send(call(2, 'test_echo', []));
    expect(await c.next()).toBe('{"jsonrpc":"2.0","id":2,"result":[]}');
    c.socket.close();
    expect((await c.closed).code).toBe(1005);
  });

  it('a client that does not read the 40 MB answer is closed with 1008 once no byte moves for the stall period', async () => {
    const c = await open(quick);
    tcp(c.socket).pause();
    c.socket.send(call(1, 'test_bigAnswer', [BIG]));
    const server = await until(
      'answer queued',
      () => serverSide(quick).bufferedAmount,
      (n) => n > BIG / 2,
      10_000,
    );
    expect(server).toBeGreaterThan(16 * 1024 * 1024);
    // Over the 16 MiB limit, but the one frame being written is not "unread": not closed at once.
    expect(serverSide(quick).readyState).toBe(WebSocket.OPEN);
    const t0 = Date.now();
    await until(
      'closed by the server',
      () => serverSide(quick).readyState,
      (state) => state === WebSocket.CLOSING,
    );
    expect(Date.now() - t0).toBeGreaterThanOrEqual(STALL_MS / 2);
    tcp(c.socket).resume();
    // The client still gets what was queued before the close frame: the answer, whole.
    expect((await c.next()).length).toBe(BIG + '{"jsonrpc":"2.0","id":1,"result":""}'.length);
    expect(await c.closed).toEqual({ code: 1008, reason: 'answers left unread past the server limit' });
    await until(
      'counted',
      () => metrics(quick),
      (text) => /^tracenode_websocket_closed_total\{reason="slow_consumer"\} 1$/m.test(text),
    );
  });

  it('a subscriber that reads gets a 20 MB notification whole and stays connected (default 8 MiB backlog)', async () => {
    const c = await open(defaults);
    c.socket.send(call(3, 'test_notify', [BIG_NOTIFICATION]));
    expect((await c.next()) === toyNotification(BIG_NOTIFICATION)).toBe(true);
    expect(await c.next()).toBe('{"jsonrpc":"2.0","id":3,"result":true}');
    c.socket.send(call(4, 'test_echo', []));
    expect(await c.next()).toBe('{"jsonrpc":"2.0","id":4,"result":[]}');
    expect(c.socket.readyState).toBe(WebSocket.OPEN);
    expect(await metrics(defaults)).not.toMatch(/tracenode_websocket_closed_total\{reason="notification_backlog"\}/);
    c.socket.close();
    expect((await c.closed).code).toBe(1005);
  });

  it('a client that still does not read once closed (1008) is cut when transport.wsSlowConsumerGraceMs has passed: no close frame reaches it', async () => {
    const cutting = await startServer({ networks: [toyNetwork()], logger: false, limits: { wsWriteStallMs: STALL_MS, wsSlowConsumerGraceMs: 300 } });
    try {
      const c = await open(cutting);
      const server = serverSide(cutting);
      tcp(c.socket).pause();
      c.socket.send(call(1, 'test_bigAnswer', [BIG]));
      await until(
        'closed by the server',
        () => server.readyState,
        (state) => state === WebSocket.CLOSING,
      );
      await until(
        'cut after the grace period',
        () => server.readyState,
        (state) => state === WebSocket.CLOSED,
      );
      tcp(c.socket).resume();
      expect((await c.closed).code).toBe(1006);
    } finally {
      await cutting.close();
    }
  });

  it('a subscriber that does not read the 20 MB notification is closed with 1008 and counted as notification_backlog', async () => {
    const c = await open(quick);
    tcp(c.socket).pause();
    c.socket.send(call(3, 'test_notify', [BIG_NOTIFICATION]));
    await until(
      'notification queued',
      () => serverSide(quick).bufferedAmount,
      (n) => n > 8 * 1024 * 1024,
      10_000,
    );
    expect(serverSide(quick).readyState).toBe(WebSocket.OPEN);
    await until(
      'closed by the server',
      () => serverSide(quick).readyState,
      (state) => state === WebSocket.CLOSING,
    );
    tcp(c.socket).resume();
    expect((await c.next()) === toyNotification(BIG_NOTIFICATION)).toBe(true);
    // The notification's call was answered before the stall: send() had queued the frame.
    expect(await c.next()).toBe('{"jsonrpc":"2.0","id":3,"result":true}');
    expect(await c.closed).toEqual({ code: 1008, reason: 'notifications left unread past the server limit' });
    await until(
      'counted',
      () => metrics(quick),
      (text) => /^tracenode_websocket_closed_total\{reason="notification_backlog"\} 1$/m.test(text),
    );
  });
});
