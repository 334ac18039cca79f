import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { rawHttp, type StartedServer, startServer, TEST_API_KEY } from '../helpers/rpcClient.js';
import { toyNetwork } from '../helpers/toyMethods.js';
import { until } from '../helpers/until.js';

/**
 * Idle WebSocket connections are pinged every `transport.wsPingIntervalMs`: a client that answers
 * (every WebSocket library does, by itself) stays connected while idle; one that does not answer
 * (here: its socket stops reading, as a vanished peer's would) is cut at the next ping, and
 * counted as `ping_timeout`.
 */
describe('WebSocket pings', () => {
  let s: StartedServer;
  beforeAll(async () => {
    // One ping a second: a client's pong (sent by its library, within the interval) is late only
    // when its process is stalled that long; at 100 ms a loaded CI machine cut the live client too.
    s = await startServer({ networks: [toyNetwork()], logger: false, limits: { wsPingIntervalMs: 1000 } });
  });
  afterAll(() => s?.close());

  const open = async () => {
    const socket = new WebSocket(`${s.url.replace('http', 'ws')}/ws/v3/${TEST_API_KEY}`);
    await new Promise((r) => socket.once('open', r));
    return socket;
  };

  it('a client that answers pings stays connected while idle; one that does not is cut and counted', async () => {
    const live = await open();
    let pings = 0;
    live.on('ping', () => pings++);
    const dead = await open();
    const deadClosed = new Promise<number>((r) => dead.once('close', (code) => r(code)));
    (dead as unknown as { _socket: import('node:net').Socket })._socket.pause();
    // The server cuts the silent one and counts it; meanwhile the live one answers ping after ping.
    const metrics = () => rawHttp(`${s.url}/metrics`, { method: 'GET' }).then((r) => r.text);
    await until('the silent client cut', metrics, (text) => /^tracenode_websocket_closed_total\{reason="ping_timeout"\} 1$/m.test(text));
    await until(
      'two pings answered',
      () => pings,
      (n) => n >= 2,
    );
    expect(live.readyState).toBe(WebSocket.OPEN);
    (dead as unknown as { _socket: import('node:net').Socket })._socket.resume();
    expect(await deadClosed).toBe(1006); // cut, no close frame
    expect(await metrics()).toMatch(/^tracenode_websocket_closed_total\{reason="ping_timeout"\} 1$/m);
    live.close();
  });
});
