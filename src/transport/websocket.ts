import type { Logger } from 'pino';
import type { RawData, WebSocket } from 'ws';
import type { NodeMetrics } from '../pipeline/metrics.js';
import type { Pipeline, Session } from '../pipeline/pipeline.js';
import type { DispatchLimits } from '../rpc/dispatch.js';
import type { NotificationChannel } from '../rpc/method.js';
import type { DrainingSocket } from './drain.js';
import { withNotifications } from './entrance.js';
import { WriteBacklog, webSocketGauge } from './writeBacklog.js';

/**
 * WebSocket sessions. One session per connection, entered at the upgrade (`entrance.ts`); each
 * text frame is one message through the request pipeline, which writes its access line, answered
 * on the same socket (answers may come out of order; clients match by id). Two bounds keep one client from growing the server:
 * - work: over `maxInFlight` unanswered messages the socket stops reading until one finishes;
 * - memory: what is queued on the socket and not yet handed to the kernel, less the largest frame
 *   queued (the answer being written: a client reading a 40 MB answer has not left it unread), is
 *   checked after each send. Past `maxBufferedBytes` after an answer the connection is closed with
 *   1008 (policy violation) and a reason saying so, and the metrics count it (`slow_consumer`);
 *   likewise past `maxBacklogBytes` after a subscription notification (`notification_backlog`).
 *   When that one frame alone keeps the socket over the limit, it is closed the same way only if
 *   no byte of it is taken for `writeStallMs` (`writeBacklog.ts` keeps the account).
 * Messages over the size limit are refused by ws itself, which closes with 1009 (message too big).
 * Every `pingIntervalMs` the connection is pinged; one that has not answered the previous ping
 * (nor sent anything since) is cut (`ping_timeout`), and its subscriptions end with it.
 * At shutdown the drain (`drain.ts`) closes each connection with 1001 once every message it sent
 * is answered (`shutdown`), answering what is still running at the cutoff with an error first.
 */

/** RFC 6455: the server is going away (shutdown). */
export const WS_CLOSE_GOING_AWAY = 1001;
/** RFC 6455: a message violates the server's policy; used for a client that does not read its answers. */
export const WS_CLOSE_POLICY_VIOLATION = 1008;

export interface WebSocketLimits {
  dispatch: DispatchLimits;
  maxInFlight: number;
  /** Bytes an answer may leave queued on the socket, besides its largest frame. */
  maxBufferedBytes: number;
  /** Bytes a notification may leave queued on the socket, besides its largest frame. */
  maxBacklogBytes: number;
  /** How long the one frame over a limit may go without a byte taken before the socket is closed. */
  writeStallMs: number;
  pingIntervalMs: number;
  /** How long a socket sent 1001 at shutdown may take to answer the close frame before it is cut. */
  closeGraceMs: number;
  /** How long a socket closed (1008) for reading too little may take to read the close frame before it is cut. */
  slowConsumerGraceMs: number;
}

/** Serves one connection until it closes, when the session's client-gone signal fires. */
export function serveWebSocket(
  socket: WebSocket,
  session: Session,
  pipeline: Pipeline,
  metrics: NodeMetrics,
  limits: WebSocketLimits,
  log: Logger,
  drain?: SocketDrain,
): void {
  metrics.wsOpened();
  let inFlight = 0;
  let paused = false;
  let closedBy: string | undefined;
  const backlog = new WriteBacklog(webSocketGauge(socket), limits.writeStallMs);
  const closeUnread = (reason: string, what: string, stalled = false): void => {
    if (closedBy !== undefined) return;
    closedBy = reason;
    backlog.stop();
    log.warn({ keyId: session.keyId, bufferedBytes: socket.bufferedAmount, stalled }, `websocket closed: ${what} left unread past the limit`);
    socket.close(WS_CLOSE_POLICY_VIOLATION, `${what} left unread past the server limit`);
    // A slow client gets what is already queued and the close frame; one that does not read at
    // all is cut after a grace period.
    setTimeout(() => socket.terminate(), limits.slowConsumerGraceMs).unref();
  };

  /** Sends `frame` and applies `limit` to what is left queued; false when that closed the connection. */
  const sendBounded = (frame: string, limit: number, reason: string, what: string): boolean => {
    backlog.send(() => socket.send(frame));
    const standing = backlog.standing(limit);
    if (standing === 'over') {
      closeUnread(reason, what);
      return false;
    }
    if (standing === 'oneFrame') backlog.watchStall(reason, limit, () => closeUnread(reason, what, true));
    return true;
  };
  const answer = (frame: string | undefined): void => {
    if (frame !== undefined && closedBy === undefined && socket.readyState === socket.OPEN)
      sendBounded(frame, limits.maxBufferedBytes, 'slow_consumer', 'answers');
  };

  // Subscriptions notify through this channel; they end when the socket closes.
  const onClose: Array<() => void> = [];
  let closed = false;
  const channel: NotificationChannel = {
    send(frame) {
      if (closedBy !== undefined || socket.readyState !== socket.OPEN) return false;
      return sendBounded(frame, limits.maxBacklogBytes, 'notification_backlog', 'notifications');
    },
    onClose(fn) {
      if (closed) fn();
      else onClose.push(fn);
    },
    isOpen: () => !closed && closedBy === undefined && socket.readyState === socket.OPEN,
  };
  const subscriber = withNotifications(session, channel);
  const alive = pingEvery(socket, limits.pingIntervalMs, () => {
    closedBy ??= 'ping_timeout';
    log.debug({ keyId: session.keyId }, 'websocket closed: no answer to ping');
  });

  // A shutdown closes the socket (1001) once nothing is in progress on it, or answers what is
  // still running at its cutoff first (`drain.ts`); frames after the close frame are not run.
  const messages = new Running();
  let late = 0;
  const goAway = (): void => {
    if (closedBy !== undefined || socket.readyState !== socket.OPEN) return;
    closedBy = 'shutdown';
    socket.close(WS_CLOSE_GOING_AWAY, 'server shutting down');
    setTimeout(() => socket.terminate(), limits.closeGraceMs).unref();
  };
  const unregister = drain?.addSocket({
    busy: () => messages.unanswered > 0,
    frames: () => messages.received,
    goAway,
    cut(answerOf) {
      for (const m of messages.cut()) answer(answerOf(m.body));
      goAway();
    },
  });

  socket.on('message', (data: RawData) => {
    alive.seen();
    messages.received++;
    // Closed for unread answers or going away: frames still arriving are not run (their answers
    // would be dropped).
    if (closedBy !== undefined) {
      late++;
      return;
    }
    inFlight++;
    if (inFlight >= limits.maxInFlight && !paused) {
      paused = true;
      socket.pause();
    }
    // Text frames arrive UTF-8-checked by ws (else 1007); binary ones are decoded strictly by
    // dispatch, so invalid UTF-8 there is a -32700.
    const message = messages.start(toBuffer(data));
    pipeline
      .handle(subscriber, message.body, limits.dispatch, log)
      .then((reply) => {
        // Answered already when a shutdown's cutoff came first.
        if (!messages.settle(message)) return;
        drain?.answeredMessage();
        answer(reply.body);
      })
      .catch((err: unknown) => log.error({ err }, 'websocket message failed'))
      .finally(() => {
        messages.settle(message);
        inFlight--;
        if (paused && inFlight < limits.maxInFlight) {
          paused = false;
          socket.resume();
        }
      });
  });
  socket.on('close', (code: number) => {
    alive.stop();
    backlog.stop();
    closed = true;
    unregister?.();
    for (const fn of onClose.splice(0)) fn();
    session.gone.abort();
    metrics.wsClosedBy(closedBy);
    if (late > 0) log.debug({ keyId: session.keyId, frames: late }, 'websocket frames after the close were not run');
    log.debug({ code, keyId: session.keyId, network: session.network }, 'websocket closed');
  });
}

/** What a WebSocket connection registers with the shutdown's drain (`drain.ts`). */
export interface SocketDrain {
  addSocket(socket: DrainingSocket): () => void;
  answeredMessage(): void;
}

/** The messages of one connection in progress, each answered once (by its pipeline or by a cutoff). */
class Running {
  received = 0;
  unanswered = 0;
  private readonly open = new Set<{ body: Buffer; done: boolean }>();

  start(body: Buffer): { body: Buffer; done: boolean } {
    const message = { body, done: false };
    this.open.add(message);
    this.unanswered++;
    return message;
  }

  /** Marks `message` answered; false when it already was. */
  settle(message: { body: Buffer; done: boolean }): boolean {
    this.open.delete(message);
    if (message.done) return false;
    message.done = true;
    this.unanswered--;
    return true;
  }

  /** Settles every message still unanswered and returns them. */
  cut(): Array<{ body: Buffer }> {
    const out = [...this.open].filter((m) => this.settle(m));
    return out;
  }
}

/**
 * Pings `socket` every `intervalMs`; one that answered neither the last ping nor sent anything
 * since is gone: `onDead` runs and the socket is cut.
 */
function pingEvery(socket: WebSocket, intervalMs: number, onDead: () => void): { seen(): void; stop(): void } {
  let alive = true;
  socket.on('pong', () => {
    alive = true;
  });
  const pinger = setInterval(() => {
    if (!alive) {
      onDead();
      socket.terminate();
      return;
    }
    alive = false;
    socket.ping();
  }, intervalMs);
  pinger.unref();
  return {
    seen: () => {
      alive = true;
    },
    stop: () => clearInterval(pinger),
  };
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
