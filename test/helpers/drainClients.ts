import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';

/**
 * Clients for the shutdown (drain) tests: each request on its own raw TCP connection, so the test
 * knows exactly when its bytes were handed to the kernel (the server has "received" it once the
 * write is done: on loopback the bytes are in the server's receive queue, accepted or not) and
 * exactly what came back — an answer, an HTTP error, a reset, or a close without an answer.
 */

/** What one request got. */
export type Outcome =
  | { kind: 'answered'; status: number; body: unknown /** The answer said `Connection: close`. */; close?: boolean }
  | { kind: 'reset'; detail: string }
  | { kind: 'closed'; detail: string }
  | { kind: 'timeout' };

/** A short label for counting outcomes: `200 result`, `503 error -32000`, `reset ECONNRESET`, … */
export function label(o: Outcome): string {
  if (o.kind === 'answered') {
    const body = o.body as { result?: unknown; error?: { code: number } } | Array<{ error?: { code: number } }> | undefined;
    const status = o.status === 0 ? 'ws' : String(o.status); // 0: a WebSocket answer
    if (Array.isArray(body)) return `${status} batch${body.some((b) => b.error) ? ' with errors' : ''}`;
    return body?.error ? `${status} error ${body.error.code}` : `${status} result`;
  }
  if (o.kind === 'timeout') return 'timeout';
  return `${o.kind} ${o.detail}`;
}

/** Counts outcomes by label. */
export function tally(outcomes: readonly Outcome[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of outcomes) out[label(o)] = (out[label(o)] ?? 0) + 1;
  return out;
}

/** A raw HTTP/1.1 POST of `body` to `path`. */
export function postBytes(path: string, body: string, keepAlive = true): Buffer {
  const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${keepAlive ? '' : 'Connection: close\r\n'}\r\n`;
  return Buffer.from(head + body);
}

/** Reads one HTTP response from `text`; undefined until it is complete. */
export function parseResponse(text: string): { status: number; body: string; rest: string; close: boolean } | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const head = text.slice(0, end);
  const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
  if (text.length < end + 4 + length) return undefined;
  return {
    status: Number(head.split(' ')[1]),
    body: text.slice(end + 4, end + 4 + length),
    rest: text.slice(end + 4 + length),
    close: /\r\nconnection: close/i.test(head),
  };
}

/** A keep-alive connection that sends requests one at a time and reports each outcome. */
export class RawConnection {
  private text = '';
  private waiting: ((o: Outcome) => void) | undefined;
  private ended: Outcome | undefined;
  readonly socket: Socket;
  /** Resolves once the TCP handshake is done. */
  readonly connected: Promise<void>;
  /** How the connection ended: `fin` (the server closed it cleanly) or `reset CODE`. */
  readonly ending: Promise<string>;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.connected = new Promise((resolve, reject) => {
      this.socket.once('connect', () => resolve());
      this.socket.once('error', reject);
    });
    this.socket.on('data', (d: Buffer) => {
      this.text += d.toString('utf8');
      const r = parseResponse(this.text);
      if (r === undefined || this.waiting === undefined) return;
      this.text = r.rest;
      const resolve = this.waiting;
      this.waiting = undefined;
      let body: unknown;
      try {
        body = JSON.parse(r.body);
      } catch {
        body = r.body;
      }
      resolve({ kind: 'answered', status: r.status, body, close: r.close });
    });
    let how = 'fin';
    this.ending = new Promise((resolve) => this.socket.once('close', () => resolve(how)));
    this.socket.on('error', (e: NodeJS.ErrnoException) => {
      how = `reset ${e.code ?? e.message}`;
      this.end({ kind: 'reset', detail: e.code ?? e.message });
    });
    this.socket.on('close', () => this.end({ kind: 'closed', detail: 'without an answer' }));
  }

  private end(o: Outcome): void {
    this.ended ??= o;
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve?.(this.ended);
  }

  /**
   * Sends one request; `written` resolves once its bytes are handed to the kernel, `outcome` with
   * what came back (at most `timeoutMs` later).
   */
  send(path: string, body: string, timeoutMs = 60_000): { written: Promise<void>; outcome: Promise<Outcome> } {
    const outcome = new Promise<Outcome>((resolve) => {
      if (this.ended) return resolve(this.ended);
      const timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs);
      this.waiting = (o) => {
        clearTimeout(timer);
        resolve(o);
      };
    });
    const written = new Promise<void>((resolve) => this.socket.write(postBytes(path, body), () => resolve()));
    return { written, outcome };
  }

  /** Ends the connection from this side (FIN). */
  close(): void {
    this.socket.end();
  }
}

/**
 * Sends each body on a connection of its own, all at once. `written` resolves when every request
 * is in the kernel; `outcomes` with each one's outcome, in order.
 */
export async function postEach(port: number, path: string, bodies: readonly string[]): Promise<{ written: Promise<void>; outcomes: Promise<Outcome[]> }> {
  const conns = bodies.map(() => new RawConnection(port));
  await Promise.all(conns.map((c) => c.connected));
  const sent = bodies.map((b, i) => conns[i].send(path, b));
  const outcomes = Promise.all(sent.map((s) => s.outcome)).finally(() => {
    for (const c of conns) c.close();
  });
  return { written: Promise.all(sent.map((s) => s.written)).then(() => undefined), outcomes };
}

/** A WebSocket that sends JSON-RPC frames and collects their answers by id, and how it closed. */
export class RpcSocket {
  readonly ws: WebSocket;
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly pending = new Map<number, (o: Outcome) => void>();
  /** Frames that were not answers: subscription notifications. */
  readonly notifications: unknown[] = [];
  private nextId = 1;
  private closeInfo: { code: number; reason: string } | undefined;

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
    this.ws.on('error', () => {});
    this.ws.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as { id?: number; method?: string };
      if (msg.method === 'eth_subscription') {
        this.notifications.push(msg);
        return;
      }
      const resolve = msg.id === undefined ? undefined : this.pending.get(msg.id);
      if (resolve === undefined) return;
      this.pending.delete(msg.id!);
      resolve({ kind: 'answered', status: 0, body: msg });
    });
    this.closed = new Promise((resolve) => {
      this.ws.once('close', (code, reason) => {
        this.closeInfo = { code, reason: reason.toString() };
        for (const [id, resolveOne] of this.pending) {
          this.pending.delete(id);
          resolveOne({ kind: 'closed', detail: `socket closed ${code} before the answer` });
        }
        resolve(this.closeInfo);
      });
    });
  }

  /** Sends one call; `written` resolves once the frame is handed to the kernel. */
  call(method: string, params: unknown[]): { written: Promise<void>; outcome: Promise<Outcome> } {
    const id = this.nextId++;
    const outcome = new Promise<Outcome>((resolve) => {
      if (this.closeInfo) return resolve({ kind: 'closed', detail: `socket closed ${this.closeInfo.code} before the call` });
      this.pending.set(id, resolve);
    });
    const written = new Promise<void>((resolve) => this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }), () => resolve()));
    return { written, outcome };
  }
}
