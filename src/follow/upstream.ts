import WebSocket from 'ws';
import { DomainError } from '../errors/domainError.js';

/**
 * The JSON-RPC client of a followed upstream node (geth, reth, erigon, anvil): requests and batch
 * requests over HTTP, or over one WebSocket when the URL is `ws://`/`wss://`, where it also
 * subscribes to `newHeads` so that a new block is known the moment the upstream has it. Every
 * request has a deadline; a WebSocket that closes is reopened on the next request (the follower
 * backs off between attempts). Answers are checked for shape here: a garbage answer is an
 * {@link UpstreamError}, never a TypeError further on.
 */

/** The upstream failed: unreachable, too slow, an HTTP error, a malformed answer. */
export class UpstreamError extends DomainError {
  override readonly name: 'UpstreamError' | 'UpstreamRpcError' = 'UpstreamError';
}

/** The upstream answered a JSON-RPC error. */
export class UpstreamRpcError extends UpstreamError {
  override readonly name = 'UpstreamRpcError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface UpstreamOptions {
  /** Deadline of one request or batch, ms. */
  requestTimeoutMs: number;
}

/** One call of a batch. */
export interface Call {
  method: string;
  params: unknown[];
}

const ETH_NEW_HEADS: Call = { method: 'eth_subscribe', params: ['newHeads'] };

type Reply = { id: number; result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };

/** The upstream's answer to one call as it gave it: its result, or its JSON-RPC error. */
export type UpstreamAnswer = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** An upstream error message longer than this is cut when relayed (nodes' messages are a line; revert data goes in `data`). */
const MAX_RELAYED_MESSAGE = 4096;

export class Upstream {
  private nextId = 1;
  private socket: WebSocket | undefined;
  private opening: Promise<WebSocket> | undefined;
  private readonly waiting = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  /** Called on each new head; (re)subscribed each time the WebSocket opens. */
  private onHead: (() => void) | undefined;
  /** The subscription request for new heads (Ethereum's or Starknet's). */
  private headsRequest: Call = ETH_NEW_HEADS;
  readonly isWebSocket: boolean;

  constructor(
    readonly url: string,
    private readonly opts: UpstreamOptions,
  ) {
    this.shownUrl = shownUpstreamUrl(url);
    this.isWebSocket = /^wss?:/.test(this.shownUrl);
  }

  /** The upstream's URL without credentials or path secrets, for logs (a provider URL carries its key). */
  readonly shownUrl: string;

  /** One call's result; a JSON-RPC error is an {@link UpstreamRpcError}. */
  async call(method: string, params: unknown[] = []): Promise<unknown> {
    const [reply] = await this.send([{ method, params }]);
    return resultOf(reply, method);
  }

  /**
   * One call's answer as the upstream gave it, its JSON-RPC error included (code, message and
   * data, for a client to read as the upstream said them); rejects with an {@link UpstreamError}
   * only when no well-formed answer came.
   */
  async forward(method: string, params: unknown[]): Promise<UpstreamAnswer> {
    const [reply] = await this.send([{ method, params }]);
    if (reply.error !== undefined) {
      const { code, message, data } = reply.error ?? {};
      if (typeof code !== 'number' || !Number.isInteger(code) || typeof message !== 'string') {
        throw new UpstreamError(`upstream ${method}: an error answer without a code and message`);
      }
      const relayed = message.length > MAX_RELAYED_MESSAGE ? `${message.slice(0, MAX_RELAYED_MESSAGE)}…` : message;
      return { error: data === undefined ? { code, message: relayed } : { code, message: relayed, data } };
    }
    if (!('result' in reply)) throw new UpstreamError(`upstream ${method}: an answer with neither result nor error`);
    return { result: reply.result };
  }

  /** The results of a batch, in order; one error fails the batch with that error. */
  async batch(calls: readonly Call[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    const replies = await this.send(calls);
    return replies.map((r, i) => resultOf(r, calls[i].method));
  }

  /**
   * Calls `listener` on each new head the upstream announces (WebSocket `newHeads`, subscribed
   * again whenever the socket is reopened); false when the upstream is HTTP (poll instead).
   * `request` is the subscription: Ethereum's by default, `starknet_subscribeNewHeads` for a
   * Starknet upstream. Any notification the upstream sends wakes the listener.
   */
  subscribeNewHeads(listener: () => void, request: Call = ETH_NEW_HEADS): boolean {
    if (!this.isWebSocket) return false;
    this.onHead = listener;
    this.headsRequest = request;
    // On the open socket now; a socket opened later subscribes as it opens.
    if (this.socket?.readyState === WebSocket.OPEN) this.askForHeads(this.socket);
    else this.ensureSocket().catch(() => undefined);
    return true;
  }

  /**
   * Subscribes `socket` to new heads. Its answer is not awaited: a failure leaves the follower
   * polling, and the next socket asks again.
   */
  private askForHeads(socket: WebSocket): void {
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method: this.headsRequest.method, params: this.headsRequest.params }));
  }

  close(): void {
    this.socket?.terminate();
    this.socket = undefined;
    this.failAll(new UpstreamError('upstream client closed'));
  }

  private async send(calls: readonly Call[]): Promise<Reply[]> {
    const ids = calls.map(() => this.nextId++);
    const body = calls.map((c, i) => ({ jsonrpc: '2.0', id: ids[i], method: c.method, params: c.params }));
    const replies = this.isWebSocket ? await this.sendWs(ids, body) : await this.sendHttp(body);
    const byId = new Map<number, Reply>();
    for (const r of replies) if (typeof r?.id === 'number') byId.set(r.id, r);
    return ids.map((id, i) => {
      const reply = byId.get(id);
      if (!reply) throw new UpstreamError(`upstream answered no reply to ${calls[i].method}`);
      return reply;
    });
  }

  private async sendHttp(body: unknown[]): Promise<Reply[]> {
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body.length === 1 ? body[0] : body),
        signal: AbortSignal.timeout(this.opts.requestTimeoutMs),
      });
    } catch (err) {
      throw new UpstreamError(`upstream unreachable: ${describe(err)}`);
    }
    if (res.status === 429) throw new UpstreamError('upstream is rate-limiting (HTTP 429)');
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new UpstreamError(`upstream answer cut: ${describe(err)}`);
    }
    if (res.status !== 200) throw new UpstreamError(`upstream answered HTTP ${res.status}`);
    const parsed = parseJson(text);
    const list = Array.isArray(parsed) ? parsed : [parsed];
    if (!list.every((r) => typeof r === 'object' && r !== null)) throw new UpstreamError('upstream answered something that is not JSON-RPC');
    return list as Reply[];
  }

  private async sendWs(ids: number[], body: unknown[]): Promise<Reply[]> {
    const socket = await this.ensureSocket();
    const pending = ids.map(
      (id) =>
        new Promise<Reply>((resolve, reject) => {
          this.waiting.set(id, { resolve, reject });
        }),
    );
    const timer = setTimeout(() => {
      for (const id of ids) this.waiting.get(id)?.reject(new UpstreamError(`upstream did not answer within ${this.opts.requestTimeoutMs} ms`));
      for (const id of ids) this.waiting.delete(id);
    }, this.opts.requestTimeoutMs);
    try {
      socket.send(JSON.stringify(body.length === 1 ? body[0] : body));
      return await Promise.all(pending);
    } finally {
      clearTimeout(timer);
    }
  }

  private ensureSocket(): Promise<WebSocket> {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) return Promise.resolve(this.socket);
    this.opening ??= new Promise<WebSocket>((resolve, reject) => {
      const socket = new WebSocket(this.url, { handshakeTimeout: this.opts.requestTimeoutMs, maxPayload: 256 * 1024 * 1024 });
      const fail = (err: Error) => {
        this.opening = undefined;
        reject(new UpstreamError(`upstream WebSocket: ${err.message}`));
      };
      socket.once('error', fail);
      socket.once('open', () => {
        socket.off('error', fail);
        socket.on('error', () => undefined);
        this.socket = socket;
        this.opening = undefined;
        resolve(socket);
        // A new socket has no subscription.
        if (this.onHead) this.askForHeads(socket);
      });
      socket.on('message', (data) => this.onMessage(String(data)));
      socket.on('close', () => {
        if (this.socket === socket) this.socket = undefined;
        this.failAll(new UpstreamError('upstream closed the WebSocket'));
        // The subscription went with the socket: wake the follower, whose next request opens a
        // new socket that subscribes again (rather than waiting for the fallback poll).
        this.onHead?.();
      });
    });
    return this.opening;
  }

  private onMessage(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return; // garbage frame: the requests it was meant to answer time out
    }
    for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
      if (typeof item !== 'object' || item === null) continue;
      const msg = item as Reply & { method?: string };
      // A notification (eth_subscription, starknet_subscriptionNewHeads, a Starknet reorg): the
      // only subscription asked for is new heads, so each one means the head may have moved.
      if (typeof msg.method === 'string' && msg.id === undefined) {
        this.onHead?.();
        continue;
      }
      if (typeof msg.id !== 'number') continue;
      const waiter = this.waiting.get(msg.id);
      if (waiter) {
        this.waiting.delete(msg.id);
        waiter.resolve(msg);
      }
    }
  }

  private failAll(err: Error): void {
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}

/**
 * `url` as logs and /health show it: scheme and host only (a provider's URL carries its key in the
 * path or the user part). Throws an {@link UpstreamError} for a URL that is not http(s) or ws(s).
 */
export function shownUpstreamUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UpstreamError('upstream URL is not a URL');
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(u.protocol)) throw new UpstreamError(`upstream URL must be http(s):// or ws(s)://, not ${u.protocol}`);
  return `${u.protocol}//${u.host}`;
}

function resultOf(reply: Reply, method: string): unknown {
  if (reply.error !== undefined) {
    const code = typeof reply.error?.code === 'number' ? reply.error.code : 0;
    const message = typeof reply.error?.message === 'string' ? reply.error.message.slice(0, 200) : 'error';
    throw new UpstreamRpcError(code, `upstream ${method}: ${message} (${code})`);
  }
  if (!('result' in reply)) throw new UpstreamError(`upstream ${method}: an answer with neither result nor error`);
  return reply.result;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UpstreamError('upstream answered something that is not JSON');
  }
}

function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return 'timed out';
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}
