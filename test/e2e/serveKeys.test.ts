import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FIXTURES, importFixtureChain, tempDir } from '../helpers/chains.js';
import { spawnCli } from '../helpers/cli.js';
import { rawHttp } from '../helpers/rpcClient.js';
import { until } from '../helpers/until.js';

/**
 * `tracenode serve` as an operator runs it: a YAML keys file with policies and a key from
 * --api-keys, metrics on a port of their own; the keys file changed and SIGHUP sent while it
 * serves; a malformed file then refused with the previous keys kept.
 */

const tmp = tempDir();
const keysFile = join(tmp.dir, 'keys.yaml');
let child: ReturnType<typeof spawnCli>;
let rpc: string;
let metrics: string;
let stdout = '';

beforeAll(async () => {
  const datadir = join(tmp.dir, 'data');
  await (await importFixtureChain(join(FIXTURES, 'demo'), datadir)).close();
  writeFileSync(keysFile, 'keys:\n  - key: team-a-key\n    id: team-a\n    allow: { methods: [eth_blockNumber] }\n  - key: team-b-key\n');
  child = spawnCli([
    'serve',
    '--datadir',
    datadir,
    '--port',
    '0',
    '--metrics-port',
    '0',
    '--keys-file',
    keysFile,
    '--api-keys',
    'listed-key',
    '--log-level',
    'warn',
  ]);
  child.stdout!.on('data', (d) => {
    stdout += d;
  });
  await until(
    'serve started',
    () => stdout,
    (out) => /serve: metrics/.test(out),
    60_000,
  );
  rpc = /JSON-RPC\s+(http:\/\/\S+)\/v3\//.exec(stdout)![1];
  metrics = /serve: metrics\s+(http:\/\/\S+)\/metrics/.exec(stdout)![1];
}, 90_000);
afterAll(async () => {
  child?.kill('SIGTERM');
  await new Promise((r) => child?.once('close', r));
  tmp.cleanup();
});

const call = async (key: string, method = 'eth_blockNumber', params = '[]') => {
  const res = await rawHttp(`${rpc}/v3/${key}`, {
    headers: { 'content-type': 'application/json' },
    body: `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${params}}`,
  });
  return { status: res.status, body: JSON.parse(res.text) };
};

it('serves the keys of the file with their policies, and the listed key', async () => {
  expect(await call('team-a-key')).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 1, result: '0x40' } });
  expect(await call('team-a-key', 'eth_chainId')).toEqual({
    status: 403,
    body: { jsonrpc: '2.0', id: 1, error: { code: -32002, message: 'rejected due to project ID settings' } },
  });
  expect((await call('team-b-key', 'eth_chainId')).status).toBe(200);
  expect((await call('listed-key')).status).toBe(200);
});

it('metrics on their own port only', async () => {
  expect(metrics).not.toBe(rpc);
  const m = await rawHttp(`${metrics}/metrics`, { method: 'GET' });
  expect(m.status).toBe(200);
  expect(m.text).toMatch(/^tracenode_key_requests_total\{key_id="team-a",method="eth_blockNumber"\} 1$/m);
  expect((await rawHttp(`${rpc}/metrics`, { method: 'GET' })).status).toBe(404);
});

it('counts cache hits and misses: the same block read twice is one miss, then one hit', async () => {
  const scrape = async () => (await rawHttp(`${metrics}/metrics`, { method: 'GET' })).text;
  const value = (text: string, name: string, cache: string) =>
    Number(new RegExp(`^tracenode_${name}\\{network="mainnet",cache="${cache}"\\} ([\\d.e+-]+)$`, 'm').exec(text)?.[1]);
  const before = await scrape();
  for (let i = 0; i < 2; i++) expect((await call('team-b-key', 'eth_getBlockByNumber', '["0x5",false]')).status).toBe(200);
  const after = await scrape();
  const delta = (name: string, cache: string) => value(after, name, cache) - value(before, name, cache);
  expect([delta('cache_misses_total', 'blocks'), delta('cache_hits_total', 'blocks')]).toEqual([1, 1]);
  expect([delta('cache_misses_total', 'canonical_hashes'), delta('cache_hits_total', 'canonical_hashes')]).toEqual([1, 1]);
  expect(delta('cache_entries', 'blocks')).toBe(1);
  expect(value(after, 'cache_hit_ratio', 'blocks')).toBeCloseTo(
    value(after, 'cache_hits_total', 'blocks') / (value(after, 'cache_hits_total', 'blocks') + value(after, 'cache_misses_total', 'blocks')),
    6,
  );
});

it('SIGHUP (or the file watch) puts a changed keys file in force; a malformed one changes nothing', async () => {
  writeFileSync(keysFile, 'keys:\n  - key: team-c-key\n');
  child.kill('SIGHUP');
  await until(
    'the new key in force',
    async () => (await call('team-c-key')).status,
    (status) => status === 200,
  );
  expect((await call('team-a-key')).status).toBe(401);
  expect((await call('listed-key')).status).toBe(200); // --api-keys keys stay
  const refusals = () => stdout.split('keys file not reloaded').length - 1;
  const before = refusals();
  writeFileSync(keysFile, 'keys:\n  - key: team-d-key\n    rateLimit: { perSecond: 5 }\n');
  child.kill('SIGHUP');
  await until('the malformed file refused', refusals, (n) => n > before);
  // (team-c-key would be gone if a reload had read the file between its truncation and its write.)
  expect((await call('team-c-key')).status).toBe(200);
  expect((await call('team-d-key')).status).toBe(401);
});
