import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import type { FixtureBlock } from './starknetFixtures.js';

/**
 * A small Starknet upstream for following tests: it serves a chain of blocks given by the test
 * over JSON-RPC on 127.0.0.1 — HTTP (single and batch requests) and WebSocket on the same port,
 * where `starknet_subscribeNewHeads` gets a `starknet_subscriptionNewHeads` notification each time
 * the test changes the chain. Methods: `starknet_chainId`, `starknet_blockHashAndNumber`,
 * `starknet_getBlockWithReceipts` and `starknet_getBlockWithTxHashes` by `{block_number}`
 * (error 24, Block not found, past the head), the latter also by the `l1_accepted` tag when the
 * test sets {@link StarknetUpstream.l1Accepted}.
 */
export class StarknetUpstream {
  private blocks: FixtureBlock[] = [];
  private readonly subscribers = new Set<WebSocket>();
  /** Requests answered, by method (tests read how the follower asked). */
  readonly calls = new Map<string, number>();
  /** The block the `l1_accepted` tag names (RPC 0.9); undefined: the tag is unknown (RPC 0.8, -32602). */
  l1Accepted: number | undefined;

  private constructor(
    private readonly server: Server,
    private readonly wss: WebSocketServer,
    readonly chainId: string,
  ) {}

  static async start(chainId = '0x534e5f4d41494e'): Promise<StarknetUpstream> {
    const server = createServer();
    const wss = new WebSocketServer({ server });
    const upstream = new StarknetUpstream(server, wss, chainId);
    server.on('request', (req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const answer = upstream.answer(body);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(answer);
      });
    });
    wss.on('connection', (socket) => {
      socket.on('message', (data) => socket.send(upstream.answer(String(data), socket)));
      socket.on('close', () => upstream.subscribers.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return upstream;
  }

  get httpUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Serves `blocks` (block i at index i) from now on and tells WebSocket subscribers. */
  setChain(blocks: readonly FixtureBlock[]): void {
    this.blocks = [...blocks];
    const head = this.blocks.at(-1);
    if (!head) return;
    const note = JSON.stringify({
      jsonrpc: '2.0',
      method: 'starknet_subscriptionNewHeads',
      params: { subscription_id: '0x1', result: { block_hash: head.block_hash, block_number: head.block_number, parent_hash: head.parent_hash } },
    });
    for (const s of this.subscribers) s.send(note);
  }

  async stop(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private answer(body: string, socket?: WebSocket): string {
    const parsed = JSON.parse(body) as Request | Request[];
    const one = (r: Request) => ({ jsonrpc: '2.0', id: r.id, ...this.run(r, socket) });
    return JSON.stringify(Array.isArray(parsed) ? parsed.map(one) : one(parsed));
  }

  private run(r: Request, socket?: WebSocket): { result: unknown } | { error: { code: number; message: string } } {
    this.calls.set(r.method, (this.calls.get(r.method) ?? 0) + 1);
    const head = this.blocks.at(-1);
    const byNumber = () => {
      const n = (r.params?.[0] as { block_number?: number } | undefined)?.block_number;
      return n === undefined ? undefined : this.blocks[n];
    };
    const notFound = { error: { code: 24, message: 'Block not found' } };
    switch (r.method) {
      case 'starknet_chainId':
        return { result: this.chainId };
      case 'starknet_blockHashAndNumber':
        return head ? { result: { block_hash: head.block_hash, block_number: head.block_number } } : { error: { code: 32, message: 'There are no blocks' } };
      case 'starknet_getBlockWithReceipts': {
        const b = byNumber();
        return b ? { result: b } : notFound;
      }
      case 'starknet_getBlockWithTxHashes': {
        if (r.params?.[0] === 'l1_accepted' && this.l1Accepted === undefined) return { error: { code: -32602, message: 'Invalid params' } };
        const b = r.params?.[0] === 'l1_accepted' ? this.blocks[this.l1Accepted!] : byNumber();
        if (!b) return notFound;
        const { transactions, ...header } = b;
        return { result: { ...header, transactions: transactions.map((t) => t.receipt.transaction_hash) } };
      }
      case 'starknet_subscribeNewHeads':
        if (!socket) return { error: { code: -32601, message: 'Method not found' } };
        this.subscribers.add(socket);
        return { result: '0x1' };
      default:
        return { error: { code: -32601, message: 'Method not found' } };
    }
  }
}

interface Request {
  id: number;
  method: string;
  params?: unknown[];
}

/**
 * The fixture's blocks as one linked chain: block i of the file becomes block number i and its
 * parent_hash the hash of block i - 1 (the fixture's real blocks are scattered over the chain,
 * fixtures/starknet/README.md). Hashes, transactions and events are the real ones.
 */
export function linkedChain(blocks: readonly FixtureBlock[]): FixtureBlock[] {
  return blocks.map((b, i) => ({ ...b, block_number: i, parent_hash: i === 0 ? b.parent_hash : blocks[i - 1].block_hash }));
}
