/**
 * Subscriptions (issue 17): `serve --follow` beside an anvil of its own (nothing mined but what
 * this section mines), with `clients` WebSocket clients subscribed to `newHeads` and as many to a
 * `logs` filter (the Tick contract's address), one subscription a socket. anvil mines `blocks`
 * blocks, one Tick log each; for every block and kind:
 * - fan-out: from the first client receiving the notification (the node has imported the block
 *   and announced it) to the last one — "block imported → last client", since a notification
 *   leaves at most a few µs after the block's write;
 * - mined → last client: from evm_mine's answer to the last client (following included).
 * Then memory: the node's RSS before and after `idleSubscriptions` idle `newHeads` subscriptions
 * (100 a connection, the per-connection cap), and per subscription.
 *
 * Every notification is checked: a newHeads header is the block anvil mined (its hash), a log is
 * the Tick of that block (its id). A missing, duplicated or wrong notification fails the section.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeAbiParameters, type Hex } from 'viem';
import WebSocket from 'ws';
import { startBareAnvil } from '../scripts/anvil/bareAnvil.js';
import { TICK_INITCODE, TICK_TOPIC } from '../scripts/anvil/tickContract.js';
import { rpcResult } from './jsonRpc.js';
import { round } from './names.js';
import { API_KEY, rssMiB, runCommand, sleep, startServer, tracenodeArgs } from './processes.js';
import { percentiles } from './wsLoad.js';

export interface SubscriptionsInputs {
  /** Clients per kind (newHeads, logs). */
  clients: number;
  blocks: number;
  idleSubscriptions: number;
  log: (line: string) => void;
}

interface Spread {
  /** First client to last client, ms. */
  fanOutP50Ms: number;
  fanOutP99Ms: number;
  /** evm_mine's answer to the last client, ms. */
  minedToLastP50Ms: number;
  minedToLastP99Ms: number;
}

export interface SubscriptionsReport {
  clientsPerKind: number;
  blocks: number;
  newHeads: Spread;
  logs: Spread;
  idle: { subscriptions: number; connections: number; rssBeforeMiB: number; rssAfterMiB: number; bytesPerSubscription: number };
}

type Kind = 'newHeads' | 'logs';

/** Arrivals of one block's notifications of one kind. */
interface Arrivals {
  count: number;
  first: number;
  last: number;
}

/** Opens `n` sockets (50 at a time); each sends `subscribe` once open and hands notifications to `onNote`. */
async function openClients(url: string, n: number, subscribe: string, onNote: (result: Record<string, unknown>) => void): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < n; i += 50) {
    const batch = Array.from({ length: Math.min(50, n - i) }, () => {
      const ws = new WebSocket(url);
      sockets.push(ws);
      return new Promise<void>((resolve, reject) => {
        ws.once('error', reject);
        ws.on('message', (data) => {
          const msg = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: unknown; params?: { result: Record<string, unknown> } };
          if (msg.id !== undefined) {
            if (msg.error !== undefined) reject(new Error(`eth_subscribe: ${JSON.stringify(msg.error)}`));
            else resolve();
          } else if (msg.params) onNote(msg.params.result);
        });
        ws.once('open', () => ws.send(subscribe));
      });
    });
    await Promise.all(batch);
  }
  return sockets;
}

function spread(perBlock: Array<{ mined: number; arrivals: Arrivals }>): Spread {
  const fan = percentiles(perBlock.map((b) => b.arrivals.last - b.arrivals.first));
  const total = percentiles(perBlock.map((b) => b.arrivals.last - b.mined));
  return { fanOutP50Ms: round(fan.p50, 1), fanOutP99Ms: round(fan.p99, 1), minedToLastP50Ms: round(total.p50, 1), minedToLastP99Ms: round(total.p99, 1) };
}

export async function measureSubscriptions(o: SubscriptionsInputs): Promise<SubscriptionsReport> {
  const work = mkdtempSync(join(tmpdir(), 'tracenode-bench-subs-'));
  const anvil = await startBareAnvil(join(work, 'anvil'));
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  const sockets: WebSocket[] = [];
  try {
    const deploy = await anvil.send({ data: TICK_INITCODE, gas: 0x100000n });
    await anvil.mine();
    const ticker = ((await anvil.call('eth_getTransactionReceipt', [deploy])) as { contractAddress: Hex }).contractAddress;
    const datadir = join(work, 'data');
    const init = await runCommand(process.execPath, tracenodeArgs('init', '--datadir', datadir, '--genesis', anvil.genesisPath), { timeoutMs: 60_000 });
    if (init.code !== 0) throw new Error(`tracenode init: ${init.stderr.slice(-500)}`);
    server = await startServer(
      'tracenode',
      tracenodeArgs('serve', '--datadir', datadir, '--api-keys', API_KEY, '--port', '0', '--log-level', 'warn', '--follow', anvil.url.replace(/^http/, 'ws')),
      /JSON-RPC\s+http:\/\/127\.0\.0\.1:(\d+)\//,
      120_000,
      join(work, 'serve.log'),
    );
    const port = server.match[1];
    const anvilHead = async () => Number((await anvil.call('eth_blockNumber')) as string);
    const caughtUp = async () => {
      const t0 = Date.now();
      while (Number((await rpcResult(`http://127.0.0.1:${port}/v3/${API_KEY}`, 'eth_blockNumber', [])) as string) < (await anvilHead())) {
        if (Date.now() - t0 > 60_000) throw new Error('subscriptions: tracenode did not catch up with anvil');
        await sleep(20);
      }
    };
    await caughtUp();

    // Arrivals by kind and block number; checked against what anvil mined.
    const arrivals: Record<Kind, Map<number, Arrivals>> = { newHeads: new Map(), logs: new Map() };
    const expected = new Map<number, { hash: string; id: bigint }>();
    const problems: string[] = [];
    const arrive = (kind: Kind, block: number, ok: boolean) => {
      const now = performance.now();
      if (!ok && problems.length < 5) problems.push(`${kind}: wrong notification for block ${block}`);
      const a = arrivals[kind].get(block);
      if (a) {
        a.count++;
        a.last = now;
      } else arrivals[kind].set(block, { count: 1, first: now, last: now });
    };
    const url = `ws://127.0.0.1:${port}/ws/v3/${API_KEY}`;
    o.log(`subscriptions: opening ${o.clients} newHeads and ${o.clients} logs clients…`);
    sockets.push(
      ...(await openClients(url, o.clients, '{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}', (h) => {
        const n = Number(h.number);
        arrive('newHeads', n, expected.get(n)?.hash === h.hash);
      })),
    );
    sockets.push(
      ...(await openClients(url, o.clients, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['logs', { address: ticker }] }), (l) => {
        const n = Number(l.blockNumber);
        const topics = l.topics as string[];
        arrive('logs', n, topics[0] === TICK_TOPIC && BigInt(topics[1]) === expected.get(n)?.id && l.removed === false);
      })),
    );
    const perBlock: Record<Kind, Array<{ mined: number; arrivals: Arrivals }>> = { newHeads: [], logs: [] };
    for (let i = 1; i <= o.blocks; i++) {
      await anvil.send({ to: ticker, data: encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [BigInt(i), 7n]), gas: 0x30000n });
      await anvil.mine();
      const mined = performance.now();
      const head = (await anvil.call('eth_getBlockByNumber', ['latest', false])) as { number: string; hash: string };
      const n = Number(head.number);
      expected.set(n, { hash: head.hash, id: BigInt(i) });
      const t0 = Date.now();
      while ((arrivals.newHeads.get(n)?.count ?? 0) < o.clients || (arrivals.logs.get(n)?.count ?? 0) < o.clients) {
        if (Date.now() - t0 > 30_000)
          throw new Error(`subscriptions: block ${n} reached ${arrivals.newHeads.get(n)?.count ?? 0} + ${arrivals.logs.get(n)?.count ?? 0} clients in 30 s`);
        await sleep(1);
      }
      for (const kind of ['newHeads', 'logs'] as const) perBlock[kind].push({ mined, arrivals: arrivals[kind].get(n)! });
    }
    await sleep(200);
    for (const kind of ['newHeads', 'logs'] as const) {
      for (const [n, a] of arrivals[kind]) if (a.count !== o.clients) problems.push(`${kind}: block ${n} reached ${a.count} clients, want ${o.clients}`);
    }
    if (problems.length > 0) throw new Error(`subscriptions: ${problems.join('; ')}`);
    const report: Partial<SubscriptionsReport> = {
      clientsPerKind: o.clients,
      blocks: o.blocks,
      newHeads: spread(perBlock.newHeads),
      logs: spread(perBlock.logs),
    };
    o.log(
      `subscriptions: ${o.clients}+${o.clients} clients, ${o.blocks} blocks: newHeads fan-out p50 ${report.newHeads!.fanOutP50Ms} ms / p99 ${report.newHeads!.fanOutP99Ms} ms (mined → last p50 ${report.newHeads!.minedToLastP50Ms} ms), logs fan-out p50 ${report.logs!.fanOutP50Ms} ms / p99 ${report.logs!.fanOutP99Ms} ms`,
    );
    for (const s of sockets.splice(0)) s.terminate();
    await sleep(1000);

    // Idle subscriptions: 100 a connection in one batch each.
    const pid = server.proc.pid;
    const before = rssMiB(pid) ?? 0;
    const connections = Math.ceil(o.idleSubscriptions / 100);
    const batch = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_subscribe', params: ['newHeads'] })));
    for (let i = 0; i < connections; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, connections - i) }, () => {
          const ws = new WebSocket(url);
          sockets.push(ws);
          return new Promise<void>((resolve, reject) => {
            ws.once('error', reject);
            ws.once('message', (data) => {
              const answers = JSON.parse(String(data)) as Array<{ result?: string }>;
              if (answers.length === 100 && answers.every((a) => typeof a.result === 'string')) resolve();
              else reject(new Error(`idle subscriptions: ${String(data).slice(0, 200)}`));
            });
            ws.once('open', () => ws.send(batch));
          });
        }),
      );
    }
    await sleep(1000);
    const after = rssMiB(pid) ?? 0;
    const subscriptions = connections * 100;
    report.idle = {
      subscriptions,
      connections,
      rssBeforeMiB: round(before, 1),
      rssAfterMiB: round(after, 1),
      bytesPerSubscription: Math.round(((after - before) * 1024 * 1024) / subscriptions),
    };
    o.log(`subscriptions: RSS ${report.idle.rssBeforeMiB} → ${report.idle.rssAfterMiB} MiB with ${subscriptions} idle subscriptions on ${connections} sockets`);
    return report as SubscriptionsReport;
  } finally {
    for (const s of sockets) s.terminate();
    await server?.stop();
    await anvil.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
