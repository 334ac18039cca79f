import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Network, openNetwork } from '../../src/cli/networks.js';
import { FIXTURES, importFixtureChain, tempDir } from '../helpers/chains.js';
import { runCli } from '../helpers/cli.js';
import { connect, type StartedServer, startServer, TEST_API_KEY, TRANSPORTS } from '../helpers/rpcClient.js';
import { testConfig } from '../helpers/testConfig.js';

/** One server hosting the Ethereum demo (default, `mainnet`) and the Starknet demo (`starknet-mainnet`). */
const tmp = tempDir();
let opened: Network[] = [];
let server: StartedServer;

beforeAll(async () => {
  const eth = join(tmp.dir, 'eth');
  const sn = join(tmp.dir, 'sn');
  await (await importFixtureChain(join(FIXTURES, 'demo'), eth)).close();
  const imported = await runCli(['import-starknet', '--datadir', sn, join(FIXTURES, 'starknet', 'mainnet-blocks.ndjson')]);
  expect(imported.code).toBe(0);
  opened = [await openNetwork('mainnet', eth, 'test', testConfig()), await openNetwork('starknet-mainnet', sn, 'test', testConfig())];
  server = await startServer({ networks: opened.map((n) => n.handle), apiKeys: [TEST_API_KEY], logger: false });
});
afterAll(async () => {
  await server?.close();
  await Promise.all(opened.map((n) => n.close()));
  tmp.cleanup();
});

for (const transport of TRANSPORTS) {
  describe(`networks by Host name [${transport}]`, () => {
    const call = async (host: string | undefined, method: string, params: unknown) => {
      const client = await connect(transport, server.url, server.key, host ? { host } : {});
      try {
        return await client.call(method, params);
      } finally {
        await client.close();
      }
    };

    it('the kinds are detected from the datadirs', () => {
      expect(opened.map((n) => n.kind)).toEqual(['ethereum', 'starknet']);
    });
    it('starknet-mainnet.localhost serves Starknet: the demo head is block 619596', async () => {
      expect((await call('starknet-mainnet.localhost:8545', 'starknet_blockNumber', [])).result).toBe(619596);
    });
    it('mainnet.localhost and an unknown Host serve the Ethereum default: head 64', async () => {
      expect((await call('mainnet.localhost', 'eth_blockNumber', [])).result).toBe('0x40');
      expect((await call('elsewhere.example', 'eth_blockNumber', [])).result).toBe('0x40');
    });
    it('eth_* on the Starknet network is -32601', async () => {
      expect((await call('starknet-mainnet.localhost', 'eth_blockNumber', [])).error).toEqual({
        code: -32601,
        message: 'the method eth_blockNumber does not exist/is not available',
      });
    });
    it('starknet_* on the Ethereum network is -32601', async () => {
      expect((await call('mainnet.localhost', 'starknet_getEvents', { filter: { chunk_size: 1 } })).error?.code).toBe(-32601);
    });
  });
}

describe('datadir kinds are not mixed up', () => {
  it('init refuses a Starknet datadir', async () => {
    const sn = join(tmp.dir, 'sn-other');
    expect((await runCli(['import-starknet', '--datadir', sn, join(FIXTURES, 'starknet', 'mainnet-blocks.ndjson')])).code).toBe(0);
    const r = await runCli(['init', '--datadir', sn, '--genesis', join(FIXTURES, 'demo', 'genesis.json')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/holds a starknet network, not an Ethereum chain/);
  });
});
