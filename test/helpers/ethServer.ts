import { join } from 'node:path';
import type { Logger } from 'pino';
import type { EthereumChain } from '../../src/chain/open.js';
import { createEthereumNetwork } from '../../src/cli/networks.js';
import type { Config } from '../../src/config/settings.js';
import { importFixtureChain, tempDir } from './chains.js';
import { startServer, TEST_API_KEY } from './rpcClient.js';
import { testConfig } from './testConfig.js';

/** A real server on 127.0.0.1:0 serving a fixture chain imported into a temporary datadir. */
export interface EthTestServer {
  url: string;
  key: string;
  chain: EthereumChain;
  close(): Promise<void>;
}

/** Imports `<fixtureDir>/{genesis.json,chain.rlp}` and serves it with `config`; `close()` removes everything. */
export async function startEthServer(fixtureDir: string, config: Config = testConfig(), logger: Logger | false = false): Promise<EthTestServer> {
  const tmp = tempDir();
  const chain = await importFixtureChain(fixtureDir, join(tmp.dir, 'data'));
  const network = await createEthereumNetwork(chain, { name: 'mainnet', clientVersion: 'tracenode/test', config });
  const server = await startServer({ networks: [network.handle], apiKeys: [TEST_API_KEY], logger });
  return {
    url: server.url,
    key: server.key,
    chain,
    async close() {
      await server.close();
      await network.close();
      await chain.close();
      tmp.cleanup();
    },
  };
}
