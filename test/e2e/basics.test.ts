import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/chains.js';
import { type EthTestServer, startEthServer } from '../helpers/ethServer.js';
import { forEachTransport } from '../helpers/rpcClient.js';

let server: EthTestServer;
beforeAll(async () => {
  server = await startEthServer(join(FIXTURES, 'execution-apis'));
});
afterAll(() => server.close());

forEachTransport(
  'foundation methods',
  () => server,
  (client) => {
    it('eth_chainId is the genesis chainId 3503995874084926', async () => {
      expect(await client().call('eth_chainId', [])).toEqual({ jsonrpc: '2.0', id: expect.anything(), result: '0xc72dd9d5e883e' });
    });
    it('net_version is the chain id in decimal', async () => {
      expect((await client().call('net_version', [])).result).toBe('3503995874084926');
    });
    it('eth_blockNumber is the head, block 54', async () => {
      expect((await client().call('eth_blockNumber')).result).toBe('0x36');
    });
    it('web3_clientVersion', async () => {
      expect((await client().call('web3_clientVersion', [])).result).toBe('tracenode/test');
    });
    it('error: too many arguments', async () => {
      expect((await client().call('eth_blockNumber', [1])).error).toEqual({ code: -32602, message: 'too many arguments, want at most 0' });
    });
    it('error: unknown method', async () => {
      expect((await client().call('eth_nope', [])).error).toEqual({ code: -32601, message: 'the method eth_nope does not exist/is not available' });
    });
  },
);
