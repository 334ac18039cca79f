import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import type { FixtureBlock } from './starknetFixtures.js';
import { baseAddressesOf, baseClassesOf, classDefinition, felt, ReplayedState, type StateUpdateJson, stateUpdatesOf } from './starknetState.js';

/**
 * A small Starknet upstream for following tests: it serves a chain of blocks given by the test
 * over JSON-RPC on 127.0.0.1 — HTTP (single and batch requests) and WebSocket on the same port,
 * where `starknet_subscribeNewHeads` gets a `starknet_subscriptionNewHeads` notification each time
 * the test changes the chain. Methods: `starknet_chainId`, `starknet_blockHashAndNumber`,
 * `starknet_getBlockWithReceipts` and `starknet_getBlockWithTxHashes` by `{block_number}`
 * (error 24, Block not found, past the head), the latter also by the `l1_accepted` tag when the
 * test sets {@link StarknetUpstream.l1Accepted}; and, over the state of `starknetState.ts`,
 * `starknet_getStateUpdate`, `starknet_getStorageAt`, `starknet_getNonce`,
 * `starknet_getClassHashAt` and `starknet_getClass` at a block by number, hash or `latest`;
 * `starknet_call` (answers `[len(calldata), contract_address]`, 20 for an address without a
 * contract), `starknet_addInvokeTransaction` (its hash becomes RECEIVED) and
 * `starknet_getTransactionStatus`.
 */
export class StarknetUpstream {
  private blocks: FixtureBlock[] = [];
  private readonly subscribers = new Set<WebSocket>();
  /** Requests answered, by method (tests read how the follower asked). */
  readonly calls = new Map<string, number>();
  /** The block the `l1_accepted` tag names (RPC 0.9); undefined: the tag is unknown (RPC 0.8, -32602). */
  l1Accepted: number | undefined;
  /** Each block's state update, derived from the chain (`starknetState.ts`). */
  stateUpdates: StateUpdateJson[] = [];
  /** Transactions sent with starknet_addInvokeTransaction. */
  readonly received: unknown[] = [];
  /** Requests answered, with their params, in order (tests read what was asked). */
  readonly requests: Array<{ method: string; params: unknown }> = [];
  private baseAddresses = new Set<string>();
  private baseClasses = new Set<string>();

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
    this.stateUpdates = stateUpdatesOf(this.blocks);
    // The base is fixed by the first chain served: later chains (a reorganisation) keep it.
    if (this.baseAddresses.size === 0) {
      this.baseAddresses = baseAddressesOf(this.stateUpdates);
      this.baseClasses = baseClassesOf(this.stateUpdates);
    }
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

  /** The state after the block `id` names (by number, hash or `latest`), or undefined for an unknown block. */
  stateAt(id: unknown): ReplayedState | undefined {
    const n = this.indexOf(id);
    return n === undefined ? undefined : new ReplayedState(this.stateUpdates, n, this.baseAddresses, this.baseClasses);
  }

  private indexOf(id: unknown): number | undefined {
    if (id === 'latest' || id === 'pending') return this.blocks.length - 1;
    const o = (id ?? {}) as { block_number?: number; block_hash?: string };
    const n = o.block_hash !== undefined ? this.blocks.findIndex((b) => BigInt(b.block_hash) === BigInt(o.block_hash!)) : (o.block_number ?? -1);
    return n >= 0 && n < this.blocks.length ? n : undefined;
  }

  private run(r: Request, socket?: WebSocket): { result: unknown } | { error: { code: number; message: string } } {
    this.calls.set(r.method, (this.calls.get(r.method) ?? 0) + 1);
    this.requests.push({ method: r.method, params: r.params });
    const state = stateMethod(this, r);
    if (state !== undefined) return state;
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
      case 'starknet_getStateUpdate': {
        const n = this.indexOf(r.params?.[0]);
        return n === undefined ? notFound : { result: this.stateUpdates[n] };
      }
      case 'starknet_addInvokeTransaction': {
        const hash = felt(0x5e17n + BigInt(this.received.length));
        this.received.push(positional(r.params, ['invoke_transaction'])[0]);
        return { result: { transaction_hash: hash } };
      }
      case 'starknet_getTransactionStatus': {
        const [hash] = positional(r.params, ['transaction_hash']) as [string];
        const inBlock = this.blocks.some((b) => b.transactions.some((t) => BigInt(t.receipt.transaction_hash) === BigInt(hash)));
        if (inBlock) return { result: { finality_status: 'ACCEPTED_ON_L2', execution_status: 'SUCCEEDED' } };
        const sent = BigInt(hash) >= 0x5e17n && BigInt(hash) < 0x5e17n + BigInt(this.received.length);
        return sent ? { result: { finality_status: 'RECEIVED' } } : { error: { code: 29, message: 'Transaction hash not found' } };
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

/** The params of a request by position, whether it gave them by position or by name. */
function positional(params: unknown, names: readonly string[]): unknown[] {
  if (Array.isArray(params)) return params;
  const o = (params ?? {}) as Record<string, unknown>;
  return names.map((n) => o[n]);
}

const NO_CONTRACT = { error: { code: 20, message: 'Contract not found' } };
const NO_BLOCK = { error: { code: 24, message: 'Block not found' } };

type Answer = { result: unknown } | { error: { code: number; message: string } };

/** The state methods (undefined: not one of them). */
function stateMethod(upstream: StarknetUpstream, r: Request): Answer | undefined {
  const p = (names: readonly string[]) => positional(r.params, names);
  const at = (id: unknown, read: (s: ReplayedState) => Answer): Answer => {
    const state = upstream.stateAt(id);
    return state === undefined ? NO_BLOCK : read(state);
  };
  const orNoContract = (v: string | undefined): Answer => (v === undefined ? NO_CONTRACT : { result: v });
  switch (r.method) {
    case 'starknet_getStorageAt': {
      const [address, key, id] = p(['contract_address', 'key', 'block_id']) as [string, string, unknown];
      return at(id, (s) => orNoContract(s.storageAt(address, key)));
    }
    case 'starknet_getNonce': {
      const [id, address] = p(['block_id', 'contract_address']) as [unknown, string];
      return at(id, (s) => orNoContract(s.nonceAt(address)));
    }
    case 'starknet_getClassHashAt': {
      const [id, address] = p(['block_id', 'contract_address']) as [unknown, string];
      return at(id, (s) => orNoContract(s.classHashAt(address)));
    }
    case 'starknet_getClass': {
      const [id, classHash] = p(['block_id', 'class_hash']) as [unknown, string];
      return at(id, (s) => (s.isDeclared(classHash) ? { result: classDefinition(classHash) } : { error: { code: 28, message: 'Class hash not found' } }));
    }
    case 'starknet_call': {
      const [request, id] = p(['request', 'block_id']) as [{ contract_address: string; calldata: string[] }, unknown];
      return at(id, (s) =>
        s.classHashAt(request.contract_address) === undefined
          ? NO_CONTRACT
          : { result: [felt(BigInt(request.calldata.length)), felt(request.contract_address)] },
      );
    }
    default:
      return undefined;
  }
}

/**
 * The fixture's blocks as one linked chain: block i of the file becomes block number i and its
 * parent_hash the hash of block i - 1 (the fixture's real blocks are scattered over the chain,
 * fixtures/starknet/README.md). Hashes, transactions and events are the real ones.
 */
export function linkedChain(blocks: readonly FixtureBlock[]): FixtureBlock[] {
  return blocks.map((b, i) => ({ ...b, block_number: i, parent_hash: i === 0 ? b.parent_hash : blocks[i - 1].block_hash }));
}
