import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EthereumChain } from '../../src/chain/open.js';
import { createEthereumNetwork } from '../../src/cli/networks.js';
import type { NetworkHandle } from '../../src/transport/networks.js';
import { FIXTURES, importFixtureChain, tempDir } from '../helpers/chains.js';
import { httpClient, type StartedServer, startServer, TEST_API_KEY } from '../helpers/rpcClient.js';
import { testConfig } from '../helpers/testConfig.js';
import { quiet, simulatedWork, until } from '../helpers/until.js';

/**
 * What handlers get of their request: one head snapshot, read once whatever the calls of the
 * request ask (a batch of head-reading methods reads the head once), and an abort signal that
 * stops a long scan when the client goes away (a trace_filter over the whole chain replays no
 * more blocks once its connection is closed).
 */

const tmp = tempDir();
let chain: EthereumChain;
let network: NetworkHandle;
let server: StartedServer;
let headReads = 0;
let replayed = 0;

beforeAll(async () => {
  chain = await importFixtureChain(join(FIXTURES, 'execution-apis'), join(tmp.dir, 'data'));
  const opened = await createEthereumNetwork(chain, { name: 'mainnet', clientVersion: 'test', config: testConfig() });
  network = opened.handle;
  const head = network.head!;
  network.head = () => {
    headReads++;
    return head();
  };
  // A slow tracer: each block replay takes 50 ms more, so a scan over 54 blocks takes seconds.
  const ctx = opened.context;
  const inner = ctx.tracer;
  ctx.tracer = {
    ...inner,
    async tracesByHash(hash: Uint8Array) {
      replayed++;
      await simulatedWork(50);
      return inner.tracesByHash(hash);
    },
  };
  server = await startServer({ networks: [network], logger: false });
});
afterAll(async () => {
  await server?.close();
  await chain?.close();
  tmp.cleanup();
});

it('a batch of head-reading calls reads the head once, and every call answers from that head', async () => {
  const client = httpClient(server.url, TEST_API_KEY);
  try {
    headReads = 0;
    const answers = await client.batch([
      { method: 'eth_blockNumber', params: [] },
      { method: 'eth_getBalance', params: ['0x7dcd17433742f4c0ca53122ab541d0ba67fc27df', 'latest'] },
      { method: 'eth_getLogs', params: [{ fromBlock: 'latest', toBlock: 'latest' }] },
      { method: 'eth_feeHistory', params: ['0x1', 'latest', []] },
      { method: 'eth_gasPrice', params: [] },
      { method: 'eth_getBlockByNumber', params: ['latest', false] },
    ]);
    expect(answers.every((a) => a.error === undefined)).toBe(true);
    expect(headReads).toBe(1);
    expect(answers[0].result).toBe('0x36');
    expect((answers[5].result as { number: string }).number).toBe('0x36');
    expect((answers[3].result as { oldestBlock: string }).oldestBlock).toBe('0x36');
    headReads = 0;
    await client.call('eth_blockNumber', []);
    await client.call('eth_blockNumber', []);
    expect(headReads).toBe(2); // one a request
  } finally {
    await client.close();
  }
});

it('a trace_filter whose client goes away stops replaying blocks', async () => {
  // Without the trace cache: every block of the range is a replay.
  replayed = 0;
  const req = httpRequest(`${server.url}/v3/${TEST_API_KEY}`, { method: 'POST', headers: { 'content-type': 'application/json' } });
  req.on('error', () => {});
  req.end('{"jsonrpc":"2.0","id":1,"method":"trace_filter","params":[{"fromBlock":"0x1","toBlock":"0x36"}]}');
  await until(
    'the scan replaying blocks',
    () => replayed,
    (n) => n >= 2,
  );
  req.destroy(); // the client goes away mid-scan
  const atAbort = replayed;
  await quiet(1500); // the scan must not go on
  expect(atAbort).toBeGreaterThan(0);
  // A few prefetched blocks may still finish; the scan does not go on to the end of the range.
  expect(replayed).toBeLessThan(atAbort + 8);
  expect(replayed).toBeLessThan(54);
});
