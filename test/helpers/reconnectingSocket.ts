import WebSocket from 'ws';

/**
 * A WebSocket JSON-RPC client that survives its server going away, as viem's socket client does
 * (utils/rpc/socket.ts): when the socket closes it connects again, subscribes again to what it had
 * subscribed, and sends again the calls that had no answer (viem retries a call that failed with
 * SocketClosedError; ethers v6 leaves reconnecting to the application, which does the same). Here
 * the new connection is made at once (viem waits `reconnect.delay`, 2 s by default) so that the
 * count of notifications missed measures the server, not a client's delay.
 *
 * It counts what a test of a restart needs: calls answered, error answers, calls sent again
 * because a close came before their answer, and the heads each subscription saw.
 */
export interface SocketStats {
  answered: number;
  errors: string[];
  /** Calls sent again on a new connection (no answer had come before the close). */
  resent: number;
  /** Closes by the server, by code and reason. */
  closes: Record<string, number>;
  /** Block numbers of the newHeads notifications received, in order. */
  heads: number[];
}

interface Pending {
  body: Record<string, unknown>;
  /** Written on a connection that then closed before the answer. */
  sent: boolean;
  resolve(answer: { result?: unknown; error?: { code: number; message: string } }): void;
}

export class ReconnectingSocket {
  readonly stats: SocketStats = { answered: 0, errors: [], resent: 0, closes: {}, heads: [] };
  private ws: WebSocket | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private subscribed = false;
  private closing = false;
  private ready: Promise<void> = Promise.resolve();

  constructor(private readonly url: string) {}

  /** Connects (again), subscribes to newHeads and sends what is pending. */
  connect(): Promise<void> {
    this.ready = new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(this.url);
      this.ws = ws;
      ws.on('open', () => {
        if (this.subscribed) this.write({ jsonrpc: '2.0', id: this.nextId++, method: 'eth_subscribe', params: ['newHeads'] });
        for (const [id, p] of this.pending) {
          if (p.sent) this.stats.resent++;
          p.sent = this.write({ ...p.body, id });
        }
        resolve();
      });
      ws.on('message', (data) => this.onMessage(data.toString()));
      ws.on('error', (err) => {
        if (ws.readyState === ws.CONNECTING) reject(err);
      });
      ws.on('close', (code, reason) => {
        if (this.ws !== ws) return;
        const key = `${code} ${reason.toString()}`;
        this.stats.closes[key] = (this.stats.closes[key] ?? 0) + 1;
        if (!this.closing) void this.reconnect();
      });
    });
    return this.ready;
  }

  /** Tries again until a connection opens (the balancer may have no replica for a moment). */
  private async reconnect(): Promise<void> {
    for (let attempt = 0; !this.closing; attempt++) {
      try {
        await this.connect();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, Math.min(50 * 2 ** attempt, 1000)));
      }
    }
  }

  /** Sends `body` if the socket is open; false when it waits for the next connection. */
  private write(body: Record<string, unknown>): boolean {
    if (this.ws?.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(body));
    return true;
  }

  private onMessage(text: string): void {
    const msg = JSON.parse(text) as {
      id?: number;
      method?: string;
      params?: { result?: { number?: string } };
      result?: unknown;
      error?: { code: number; message: string };
    };
    if (msg.method === 'eth_subscription') {
      const number = msg.params?.result?.number;
      if (number !== undefined) this.stats.heads.push(Number(number));
      return;
    }
    const p = msg.id === undefined ? undefined : this.pending.get(msg.id);
    if (p === undefined) return;
    this.pending.delete(msg.id!);
    p.resolve(msg);
  }

  /** Subscribes to newHeads (and again after every reconnection). */
  async subscribe(): Promise<void> {
    this.subscribed = true;
    await this.call('eth_subscribe', ['newHeads']);
  }

  /** One call; resolves with its answer, however many connections it takes. */
  call(method: string, params: unknown[]): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
    const id = this.nextId++;
    const body = { jsonrpc: '2.0', method, params };
    return new Promise((resolve) => {
      const pending: Pending = {
        body,
        sent: false,
        resolve: (answer) => {
          if (answer.error) this.stats.errors.push(`${method}: ${answer.error.code} ${answer.error.message}`);
          else this.stats.answered++;
          resolve(answer);
        },
      };
      this.pending.set(id, pending);
      pending.sent = this.write({ ...body, id });
    });
  }

  /** Calls sent and not answered yet. */
  unanswered(): number {
    return this.pending.size;
  }

  close(): void {
    this.closing = true;
    this.ws?.close();
  }
}
