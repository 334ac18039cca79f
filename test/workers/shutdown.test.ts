import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openChain } from '../../src/chain/open.js';
import { FIXTURES, importFixtureChain, tempDir } from '../helpers/chains.js';
import { startServeCli } from '../helpers/cli.js';
import { rawHttp } from '../helpers/rpcClient.js';
import { testConfig } from '../helpers/testConfig.js';
import { until } from '../helpers/until.js';

/**
 * SIGTERM while EVM work runs (issue 15): `tracenode serve` with one worker gets an endless-loop
 * eth_call and a second one queued behind it, then SIGTERM. Both are answered (each ends at its
 * own deadline, counted from when the worker took it), the process exits 0, and the datadir
 * opens again at once: the workers and the database were closed, not abandoned.
 */

const tmp = tempDir();
afterAll(() => tmp.cleanup());

it('SIGTERM: running and queued EVM calls are answered, then the workers and the database close', async () => {
  const datadir = join(tmp.dir, 'data');
  await (await importFixtureChain(join(FIXTURES, 'demo'), datadir)).close();
  const serve = await startServeCli([
    '--datadir',
    datadir,
    '--port',
    '0',
    '--api-keys',
    'shutdown-key',
    '--log-level',
    'warn',
    '--execution.evm-workers',
    '1',
    '--execution.call-timeout-ms',
    '1000',
  ]);
  const { child, exited } = serve;
  const rpc = `${serve.base}/v3/shutdown-key`;
  // Two different calls (their gas differs): identical ones would share one job (the call cache).
  const loop = (id: number) =>
    rawHttp(rpc, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'eth_call',
        params: [
          { to: '0x00000000000000000000000000000000000100a0', gas: `0x${(1_000_000_000 + id).toString(16)}` },
          'latest',
          { '0x00000000000000000000000000000000000100a0': { code: '0x5b600056' } },
        ],
      }),
    });
  const gauge = async (name: string) =>
    Number(new RegExp(`^${name}\\{network="mainnet"\\} (\\d+)$`, 'm').exec((await rawHttp(`${serve.base}/metrics`, { method: 'GET' })).text)?.[1] ?? -1);
  const running = loop(1);
  await until(
    'the first call running',
    () => gauge('tracenode_evm_workers_busy'),
    (n) => n === 1,
  );
  const queued = loop(2);
  await until(
    'the second call queued',
    () => gauge('tracenode_evm_queue_length'),
    (n) => n === 1,
  );
  child.kill('SIGTERM');
  const answers = await Promise.all([running, queued]);
  for (const [i, a] of answers.entries()) {
    expect(a.status).toBe(200);
    expect(JSON.parse(a.text)).toEqual({ jsonrpc: '2.0', id: i + 1, error: { code: -32000, message: 'execution aborted (timeout = 1s)' } });
  }
  expect(await exited).toBe(0);
  expect(serve.output()).toContain('serve: shutting down');
  // The lock is released: the datadir opens in this process.
  const chain = await openChain(datadir, testConfig().caches);
  expect((await chain.store.head())?.number).toBeGreaterThan(0n);
  await chain.close();
}, 60_000);
