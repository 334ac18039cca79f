import type { FastifyRequest } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import { redactUrl } from '../log/logger.js';
import { type DispatchLimits, dispatch } from './dispatch.js';
import type { NetworkHandle } from './networks.js';

/** WebSocket sessions: reading JSON-RPC messages with a bound on work in progress, and closing sockets at shutdown. */

/** WebSocket close code sent to every open socket by `app.close()` (RFC 6455: "going away"). */
const WS_CLOSE_GOING_AWAY = 1001;

/**
 * One WebSocket session. Messages are dispatched as they arrive (responses may come out of
 * order; clients match by id). Over `maxInFlight` unanswered messages the socket stops reading
 * until one finishes. Messages over the size limit are refused by ws itself, which closes the
 * connection with 1009 (message too big): the frame never reaches us, so there is no request to
 * answer, and geth likewise drops connections that exceed its read limit.
 */
export function serveWebSocket(socket: WebSocket, req: FastifyRequest, network: NetworkHandle, limits: DispatchLimits, maxInFlight: number): void {
  const log = req.log;
  log.debug({ url: redactUrl(req.url), network: network.name }, 'websocket open');
  let inFlight = 0;
  let paused = false;
  socket.on('message', (data: RawData) => {
    inFlight++;
    if (inFlight >= maxInFlight && !paused) {
      paused = true;
      socket.pause();
    }
    // Text frames arrive already UTF-8-checked by ws (else 1007); binary ones are decoded
    // strictly by dispatch, so invalid UTF-8 there is a -32700.
    dispatch(toBuffer(data), network, log, limits)
      .then((out) => {
        if (out !== undefined && socket.readyState === socket.OPEN) socket.send(out);
      })
      .catch((err: unknown) => log.error({ err }, 'websocket dispatch failed'))
      .finally(() => {
        inFlight--;
        if (paused && inFlight < maxInFlight) {
          paused = false;
          socket.resume();
        }
      });
  });
  socket.on('close', (code: number) => log.debug({ code, network: network.name }, 'websocket closed'));
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** Sends 1001 to every socket and waits for them to close, cutting the stragglers after `graceMs`. */
export async function closeWebSockets(clients: Iterable<WebSocket>, graceMs: number): Promise<void> {
  await Promise.all(
    [...clients].map(
      (socket) =>
        new Promise<void>((resolve) => {
          if (socket.readyState === socket.CLOSED) return resolve();
          const timer = setTimeout(() => socket.terminate(), graceMs);
          socket.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          if (socket.readyState !== socket.CLOSING) socket.close(WS_CLOSE_GOING_AWAY, 'server shutting down');
        }),
    ),
  );
}
