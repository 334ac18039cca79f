import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import { answerEachWith } from '../rpc/dispatch.js';
import { ServerError } from '../rpc/errors.js';

/**
 * The drain of a shutdown (SIGTERM, SIGINT): every request already received is answered, no
 * connection is reset. In order:
 * 1. Notice. /health answers 503 at once, so a load balancer takes the node out; until then it
 *    may still send, so the listener keeps accepting — every answer now closes its connection —
 *    until no request has come for `quietMs` (at most `noticeMs`).
 * 2. The listener stops accepting once the connections the kernel had already accepted (their
 *    requests possibly sent) are taken rather than reset: turns of the event loop are taken until
 *    one accepts none, for at most another `noticeMs` (clients that reconnect as fast as they are
 *    answered would otherwise keep it open). A busy serving thread accepts about one connection a
 *    turn (measured: 50 queued connections took 3 s to accept under four busy processes on two
 *    cores, past the notice; closing then reset the rest), so one turn is not enough.
 * 3. Every HTTP request in progress (a batch is one) is answered; each WebSocket, once nothing
 *    is in progress on it, gets a 1001 close after its answers (its subscriptions end with it);
 *    once nothing has come for `quietMs`, idle keep-alive connections are closed.
 * 4. At `drainMs` after the signal, whatever is still running is answered instead: each call of
 *    it gets -32000 `the node is shutting down` (HTTP 503, so a proxy may retry it elsewhere), its
 *    work is aborted, and sockets get their 1001.
 * "Nothing came" is always checked again after the event loop has read what was waiting in the
 * kernel, so a request already sent is never taken for silence: closing a connection with unread
 * bytes would reset it.
 */

/** The settings of a drain (`transport.shutdown*`, `transport.wsCloseGraceMs`). */
export interface DrainSettings {
  drainMs: number;
  noticeMs: number;
  quietMs: number;
  wsCloseGraceMs: number;
}

/** An HTTP request in progress, as the cutoff needs it. */
export interface HttpEntry {
  readonly res: ServerResponse;
  /** Its body once read: the cutoff answers each of its calls (else one answer, id null). */
  body?: Uint8Array;
  /** Stops its work (the session's client-gone signal); called at the cutoff. */
  abort?: () => void;
  /** Answered by the cutoff. */
  cut?: boolean;
}

/** A WebSocket connection as the drain sees it (`websocket.ts`). */
export interface DrainingSocket {
  /** Whether a message is in progress on it. */
  busy(): boolean;
  /** Frames received so far (to tell that one came between two looks). */
  frames(): number;
  /** Sends 1001 after the answers already written; ends its subscriptions. */
  goAway(): void;
  /** Answers every message in progress with `answer(body)`, then goes away. */
  cut(answer: (body: Uint8Array) => string | undefined): void;
}

/** What a drain did. */
export interface DrainReport {
  ms: number;
  /** HTTP requests and WebSocket messages answered while draining. */
  answered: number;
  /** Requests and messages answered with the shutdown error at the grace period's end. */
  cut: number;
  /** HTTP requests and WebSockets still open when the drain gave up on them (cut: their clients do not read). */
  leftOpen: number;
}

/** The error every call still running at the end of the grace period gets. */
export const SHUTTING_DOWN = new ServerError('the node is shutting down');
const SHUTTING_DOWN_NULL_ID = answerEachWith('{"id":null}', SHUTTING_DOWN)!;
/** How often the drain looks at its connections. */
const TICK_MS = 20;

/** One turn of the event loop with an I/O poll in it: what the kernel holds has been read. */
const pollPass = (): Promise<void> => new Promise((resolve) => setTimeout(() => setImmediate(resolve), 0));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class Drain {
  private phase: 'serving' | 'notice' | 'closing' = 'serving';
  private readonly http = new Set<HttpEntry>();
  private readonly entries = new WeakMap<ServerResponse, HttpEntry>();
  private readonly sockets = new Set<DrainingSocket>();
  private readonly leaving = new Set<DrainingSocket>();
  private lastArrival = 0;
  /** Connections the listener accepted since the signal. */
  private accepted = 0;
  private answered = 0;
  private cut = 0;

  constructor(private readonly settings: DrainSettings) {}

  /** True from the signal on: /health is 503 and every HTTP answer closes its connection. */
  get draining(): boolean {
    return this.phase !== 'serving';
  }

  /** Counts `res` until it closes (`onClose` runs then too); returns its entry. */
  readonly track = (res: ServerResponse, onClose?: () => void): HttpEntry => {
    const entry: HttpEntry = { res };
    this.http.add(entry);
    res.once('close', () => {
      this.http.delete(entry);
      if (this.phase !== 'serving' && res.writableFinished && entry.cut !== true) this.answered++;
      onClose?.();
    });
    return entry;
  };

  /** {@link track}, for a request Fastify's router answers: its routes find the entry by {@link entry}. */
  trackRouted(res: ServerResponse): void {
    this.entries.set(res, this.track(res));
  }

  /** The entry of a request tracked by {@link trackRouted}: its route sets the body and the abort. */
  entry(res: ServerResponse): HttpEntry | undefined {
    return this.entries.get(res);
  }

  /** A request came (not /health nor /metrics): while draining, it delays "nothing came". */
  readonly arrived = (req: IncomingMessage): void => {
    if (this.phase === 'serving') return;
    const url = req.url ?? '';
    if (url === '/health' || url.startsWith('/metrics')) return;
    this.lastArrival = performance.now();
  };

  /** Registers a WebSocket connection; the returned function unregisters it (on close). */
  addSocket(socket: DrainingSocket): () => void {
    this.sockets.add(socket);
    return () => {
      this.sockets.delete(socket);
      this.leaving.delete(socket);
    };
  }

  /** A WebSocket message was answered. */
  answeredMessage(): void {
    if (this.phase !== 'serving') this.answered++;
  }

  /** Runs the drain on `server` (steps 1-4 above); resolves when every connection is closed or given up. */
  async run(server: Server): Promise<DrainReport> {
    const { drainMs, noticeMs, wsCloseGraceMs } = this.settings;
    const t0 = performance.now();
    const deadline = t0 + drainMs;
    this.phase = 'notice';
    this.lastArrival = t0;
    const onUpgrade = (req: IncomingMessage) => this.arrived(req);
    const onConnection = () => {
      this.accepted++;
    };
    server.prependListener('upgrade', onUpgrade);
    server.on('connection', onConnection);
    try {
      await this.waitFor(() => this.quiet(), Math.min(deadline, t0 + noticeMs));
      await this.acceptQueued(Math.min(deadline, performance.now() + noticeMs));
      if (server.listening) NetServer.prototype.close.call(server);
      this.phase = 'closing';
      const drained = await this.waitFor(() => {
        this.sendAway();
        return this.http.size === 0 && this.sockets.size === 0 && this.quiet();
      }, deadline);
      if (!drained) this.cutAll();
      server.closeIdleConnections();
      // The cut answers and the close handshakes finish, or are given up.
      await this.waitFor(() => this.http.size === 0 && this.sockets.size === 0, performance.now() + wsCloseGraceMs + TICK_MS);
      return { ms: Math.round(performance.now() - t0), answered: this.answered, cut: this.cut, leftOpen: this.http.size + this.sockets.size };
    } finally {
      server.off('upgrade', onUpgrade);
      server.off('connection', onConnection);
    }
  }

  /** Takes turns of the event loop until one accepts no connection (the kernel's queue is empty), or until `until`. */
  private async acceptQueued(until: number): Promise<void> {
    for (;;) {
      const before = this.accepted;
      await pollPass();
      if (this.accepted === before || performance.now() >= until) return;
    }
  }

  /** Nothing came for `quietMs`. */
  private quiet(): boolean {
    return performance.now() - this.lastArrival >= this.settings.quietMs;
  }

  /** Resolves true once `done()` holds, seen again after an I/O poll; false at `until`. */
  private async waitFor(done: () => boolean, until: number): Promise<boolean> {
    for (;;) {
      if (done()) {
        await pollPass();
        if (done()) return true;
      }
      if (performance.now() >= until) return false;
      await sleep(TICK_MS);
    }
  }

  /** Sends 1001 to each WebSocket with nothing in progress (seen so across an I/O poll). */
  private sendAway(): void {
    for (const socket of this.sockets) {
      if (this.leaving.has(socket) || socket.busy()) continue;
      const frames = socket.frames();
      this.leaving.add(socket);
      void pollPass().then(() => {
        if (!socket.busy() && socket.frames() === frames) socket.goAway();
        else this.leaving.delete(socket);
      });
    }
  }

  /** The grace period is over: answers what is still running with the shutdown error. */
  private cutAll(): void {
    const answer = (body: Uint8Array) => {
      this.cut++;
      return answerEachWith(body, SHUTTING_DOWN);
    };
    for (const entry of this.http) {
      const { res } = entry;
      if (!res.headersSent && !res.writableEnded) {
        entry.cut = true;
        const body = entry.body === undefined ? SHUTTING_DOWN_NULL_ID : (answer(entry.body) ?? '');
        if (entry.body === undefined) this.cut++;
        res.writeHead(503, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(body),
          'access-control-allow-origin': '*',
          'retry-after': '1',
          connection: 'close',
        });
        res.end(body);
      }
      entry.abort?.();
    }
    for (const socket of this.sockets) socket.cut(answer);
  }
}
