import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type BareAnvil, startBareAnvil } from '../../scripts/anvil/bareAnvil.js';
import { TICK_INITCODE } from '../../scripts/anvil/tickContract.js';
import { type HaproxyProcess, startHaproxyListening } from '../../scripts/lib/services.js';
import { initDatadir } from '../../src/import/init.js';
import { tempDir } from '../helpers/chains.js';
import { runCli, type ServeCli, startServeCli } from '../helpers/cli.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { describeWithProgram, onPath } from '../helpers/programs.js';
import { ReconnectingSocket } from '../helpers/reconnectingSocket.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { rawHttp } from '../helpers/rpcClient.js';
import { testConfig } from '../helpers/testConfig.js';
import { paced, pastWindow, until } from '../helpers/until.js';

/**
 * A rolling restart under load, with the real parts of deploy/: two `tracenode serve --follow
 * --redis` replicas of an anvil chain behind HAProxy running deploy/haproxy.cfg (its third server
 * a port nothing listens on), sharing one Redis. A client sends a steady mix over HTTP (reads,
 * eth_call, trace_block, eth_getLogs) at a fixed rate, and WebSocket clients send calls at a fixed
 * rate while subscribed to newHeads, reconnecting and subscribing again when their socket closes,
 * as viem does; anvil mines a block with a log every second. Each replica is restarted in turn
 * (SIGTERM, exit, start again on its port, back in HAProxy), the second once the first serves
 * again. Every HTTP request and every WebSocket call is answered, none with an error; the calls
 * a client had to send again and the heads each subscription missed are counted and printed.
 *
 * Runs SECONDS (20 in the suite; `npm run rolling-restart` runs it for 60, with
 * TRACENODE_ROLLING_RESTART_SECONDS=60), or until both replicas are back if that takes longer.
 */

const SECONDS = Number(process.env.TRACENODE_ROLLING_RESTART_SECONDS ?? 20);
const HTTP_PER_SECOND = 30;
const WS_CLIENTS = 4;
const WS_PER_SECOND = 5;
const KEY = 'rolling-key';
const ROOT = resolve(import.meta.dirname, '../..');
const HAPROXY = onPath('haproxy');
const withFoundry = describeWithFoundry(['anvil'], 'the rolling restart test');
const describe = HAPROXY === undefined ? describeWithProgram(undefined, 'haproxy', 'the rolling restart test') : withFoundry;
const tmp = tempDir('tracenode-rolling-');
const ADDR = '0x00000000000000000000000000000000000ca11e';
const countdown = (n: number) => `0x62${n.toString(16).padStart(6, '0')}5b6001900380600457602a60005260206000f3`;

let anvil: BareAnvil;
let redis: TestRedis;
let haproxy: HaproxyProcess | undefined;
let ticker = '';
let lb = '';
let dead: Server | undefined;
const dirs = [join(tmp.dir, 'r1'), join(tmp.dir, 'r2')];
const ports: number[] = [];
const replicas: ServeCli[] = [];
const agent = new Agent({ keepAlive: true, maxSockets: 32 });

/**
 * Replica `i`: the first start listens on a port the kernel picks (port 0); a restart takes the
 * same port again (HAProxy's configuration names it), and tries again, a few times, if another
 * process took it meanwhile (serve exits at once saying the port is in use).
 */
async function serveReplica(i: number): Promise<ServeCli> {
  const args = (port: number) => [
    ...['--datadir', dirs[i], '--port', String(port), '--api-keys', KEY, '--log-level', 'warn'],
    ...['--follow', anvil.url, '--follow.poll-interval-ms', '100', '--follow.health-max-lag-blocks', '2'],
    ...['--redis', redis.url, '--redis.command-timeout-ms', '2000', '--execution.evm-workers', '1'],
  ];
  for (let attempt = 1; ; attempt++) {
    try {
      const serve = await startServeCli(args(ports[i] ?? 0));
      ports[i] = Number(new URL(serve.base).port);
      return serve;
    } catch (err) {
      if (ports[i] === undefined || attempt === 5 || !String(err).includes('the port is in use')) throw err;
      await paced(200 * attempt); // the next attempt
    }
  }
}

async function health(base: string): Promise<number> {
  return (await rawHttp(`${base}/health`, { method: 'GET' }).catch(() => ({ status: 0 }))).status;
}

/** Calls a replica answered (every method, every outcome), from its /metrics. */
async function served(base: string): Promise<number> {
  const text = (await rawHttp(`${base}/metrics`, { method: 'GET' }).catch(() => ({ text: '' }))).text;
  return text
    .split('\n')
    .filter((l) => l.startsWith('tracenode_requests_total{'))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

/** The HTTP mix, by turn: a cached read, a state read, an eth_call, a block replay, a log scan. */
function httpCall(i: number): { method: string; params: unknown[] } {
  switch (i % 5) {
    case 0:
      return { method: 'eth_blockNumber', params: [] };
    case 1:
      return { method: 'eth_getBalance', params: [ticker, 'latest'] };
    case 2:
      return { method: 'eth_call', params: [{ to: ADDR }, 'latest', { [ADDR]: { code: countdown(2000) } }] };
    case 3:
      return { method: 'trace_block', params: ['0x2'] };
    default:
      return { method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: 'latest', address: ticker }] };
  }
}

describe('rolling restart of two replicas behind HAProxy under load', () => {
  beforeAll(async () => {
    anvil = await startBareAnvil(join(tmp.dir, 'anvil'));
    const deploy = await anvil.send({ data: TICK_INITCODE, gas: 0x100000n });
    await anvil.mine();
    ticker = ((await anvil.call('eth_getTransactionReceipt', [deploy])) as { contractAddress: string }).contractAddress;
    await anvil.mine();
    redis = await startRedis();
    await initDatadir(dirs[0], readFileSync(anvil.genesisPath, 'utf8'), testConfig());
    replicas.push(await serveReplica(0));
    await until(
      'replica 1 caught up',
      () => health(replicas[0].base),
      (s) => s === 200,
      60_000,
    );
    const shot = await runCli(['snapshot', '--datadir', dirs[0], dirs[1]]);
    expect(shot.code, shot.stderr).toBe(0);
    replicas.push(await serveReplica(1));
    await until(
      'replica 2 caught up',
      () => health(replicas[1].base),
      (s) => s === 200,
      60_000,
    );
    // Two replicas: the file's third server is a port held by this test that drops every
    // connection (out after its checks), so no other process can take it meanwhile.
    dead = createNetServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => dead!.listen(0, '127.0.0.1', resolve));
    const started = await startHaproxyListening(
      HAPROXY!,
      join(ROOT, 'deploy/haproxy.cfg'),
      { REPLICA1: `127.0.0.1:${ports[0]}`, REPLICA2: `127.0.0.1:${ports[1]}`, REPLICA3: `127.0.0.1:${(dead.address() as AddressInfo).port}` },
      async (url) => (await health(url)) === 200,
    );
    haproxy = started.haproxy;
    lb = started.url;
    await pastWindow(2000); // the third server's checks fail: out (deploy/haproxy.cfg: within 1.25 s)
  }, 180_000);

  afterAll(async () => {
    await haproxy?.stop();
    dead?.close();
    for (const r of replicas) {
      if (r.child.exitCode === null) r.child.kill('SIGTERM');
      await r.exited;
    }
    await redis?.stop();
    await anvil?.stop();
    agent.destroy();
    tmp.cleanup();
  });

  it(`${SECONDS} s of HTTP and WebSocket load while each replica restarts in turn: nothing lost, nothing failed`, async () => {
    let stop = false;
    const mining = (async () => {
      for (let n = 0; !stop; n++) {
        const word = (v: number) => v.toString(16).padStart(64, '0');
        await anvil.send({ to: ticker as `0x${string}`, data: `0x${word(n)}${word(n)}`, gas: 100_000n });
        await anvil.mine();
        await paced(1000); // a block a second
      }
    })();

    const http = { sent: 0, ok: 0, failed: [] as string[] };
    const httpLoad = (async () => {
      const pending: Promise<void>[] = [];
      const t0 = performance.now();
      for (let i = 0; !stop; i++) {
        const wait = t0 + (i * 1000) / HTTP_PER_SECOND - performance.now();
        if (wait > 0) await paced(wait);
        const { method, params } = httpCall(i);
        http.sent++;
        pending.push(
          rawHttp(`${lb}/v3/${KEY}`, {
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id: i, method, params }),
            agent,
          }).then(
            (r) => {
              const body = r.status === 200 ? (JSON.parse(r.text) as { result?: unknown }) : undefined;
              if (body?.result !== undefined) http.ok++;
              else http.failed.push(`${method}: ${r.status} ${r.text.slice(0, 200)}`);
            },
            (err: Error) => void http.failed.push(`${method}: ${err.message}`),
          ),
        );
      }
      await Promise.all(pending);
    })();

    const sockets = Array.from({ length: WS_CLIENTS }, () => new ReconnectingSocket(`${lb.replace('http', 'ws')}/ws/v3/${KEY}`));
    for (const s of sockets) {
      await s.connect();
      await s.subscribe();
    }
    const wsLoad = sockets.map(async (s, c) => {
      const calls: Promise<unknown>[] = [];
      const t0 = performance.now();
      for (let i = 0; !stop; i++) {
        const wait = t0 + (i * 1000) / WS_PER_SECOND - performance.now();
        if (wait > 0) await paced(wait);
        const turn = (i + c) % 3;
        calls.push(
          turn === 0
            ? s.call('eth_blockNumber', [])
            : turn === 1
              ? s.call('eth_call', [{ to: ADDR }, 'latest', { [ADDR]: { code: countdown(2000) } }])
              : s.call('eth_getBalance', [ticker, 'latest']),
        );
      }
      await Promise.all(calls);
    });

    // Each replica in turn: SIGTERM, its exit, started again, serving through HAProxy again.
    const t0 = performance.now();
    const restarts: string[] = [];
    await paced(3000); // the load runs a while before the first restart
    for (const i of [0, 1]) {
      const r = replicas[i];
      const signalled = performance.now();
      r.child.kill('SIGTERM');
      expect(
        await until(
          'draining',
          () => health(r.base),
          (s) => s !== 200,
          2000,
        ),
      ).toBe(503);
      expect(await r.exited).toBe(0);
      const drained = /serve: drained in .*/.exec(r.output())?.[0];
      const exitedMs = Math.round(performance.now() - signalled);
      replicas[i] = await serveReplica(i);
      await until(
        `replica ${i + 1} back`,
        () => health(replicas[i].base),
        (s) => s === 200,
        60_000,
      );
      const before = await served(replicas[i].base);
      await until(
        `replica ${i + 1} served through HAProxy`,
        () => served(replicas[i].base),
        (n) => n > before + 10,
        30_000,
      );
      restarts.push(
        `replica ${i + 1}: exited 0 ${exitedMs} ms after SIGTERM (${drained}); serving through HAProxy again ${Math.round(performance.now() - signalled)} ms after it`,
      );
    }
    const left = SECONDS * 1000 - (performance.now() - t0);
    if (left > 0) await paced(left); // the load's whole length
    stop = true;
    await Promise.all([mining, httpLoad, ...wsLoad]);

    const missed = sockets.map((s) => {
      const heads = [...new Set(s.stats.heads)].sort((a, b) => a - b);
      return heads.length === 0 ? Number.NaN : heads.at(-1)! - heads[0] + 1 - heads.length;
    });
    console.log(
      [
        `rolling restart, ${Math.round((performance.now() - t0) / 1000)} s:`,
        ...restarts,
        `HTTP: ${http.sent} sent, ${http.ok} answered, ${http.failed.length} failed`,
        ...sockets.map(
          (s, c) =>
            `WebSocket ${c + 1}: ${s.stats.answered} answered, ${s.stats.errors.length} errors, ${s.stats.resent} sent again after a close, closes ${JSON.stringify(s.stats.closes)}, ${s.stats.heads.length} heads, ${missed[c]} missed`,
        ),
      ].join('\n'),
    );
    for (const s of sockets) s.close();
    expect(http.failed).toEqual([]);
    expect(http.ok).toBe(http.sent);
    for (const s of sockets) {
      expect(s.stats.errors).toEqual([]);
      expect(s.unanswered()).toBe(0);
      expect(s.stats.heads.length).toBeGreaterThan(SECONDS / 2);
    }
    // Every client was moved at least once: its replica closed it with 1001 after its answers.
    expect(sockets.every((s) => (s.stats.closes['1001 server shutting down'] ?? 0) >= 1)).toBe(true);
  }, 300_000);
});
