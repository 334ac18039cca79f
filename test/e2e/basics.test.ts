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
    // geth's gas price oracle by hand: every transaction of the chain's last 40 blocks tips 1 wei
    // (gasPrice = baseFee + 1, or maxPriorityFeePerGas 1), below geth's 2-wei ignore price, so each
    // sampled block counts the default price once: 0.001 gwei = 1,000,000 wei.
    it('eth_maxPriorityFeePerGas: geth oracle default when every tip is below the ignore price', async () => {
      expect((await client().call('eth_maxPriorityFeePerGas', [])).result).toBe('0xf4240');
    });
    it('eth_gasPrice: the suggested tip plus the head block base fee (block 54: 27,399,063 wei)', async () => {
      expect((await client().call('eth_getBlockByNumber', ['latest', false])).result).toMatchObject({ number: '0x36', baseFeePerGas: '0x1a21397' });
      expect((await client().call('eth_gasPrice', [])).result).toBe('0x1b155d7'); // 1,000,000 + 27,399,063
    });
    it('eth_accounts: the node holds no keys', async () => {
      expect((await client().call('eth_accounts', [])).result).toEqual([]);
    });
    it('net_listening: true (the node is answering)', async () => {
      expect((await client().call('net_listening', [])).result).toBe(true);
    });
    it('net_peerCount: 0x0 (no p2p side)', async () => {
      expect((await client().call('net_peerCount', [])).result).toBe('0x0');
    });
    it('error: too many arguments', async () => {
      expect((await client().call('eth_blockNumber', [1])).error).toEqual({ code: -32602, message: 'too many arguments, want at most 0' });
    });
    it('error: unknown method', async () => {
      expect((await client().call('eth_nope', [])).error).toEqual({ code: -32601, message: 'the method eth_nope does not exist/is not available' });
    });
  },
);
