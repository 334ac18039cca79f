import type { EthereumChain } from '../chain/open.js';
import type { StateReader } from '../state/stateReader.js';

/** What Ethereum method handlers may use. Built once per network by the CLI. */
export interface EthContext {
  chain: EthereumChain;
  /** Reads archive state at any block. */
  state: StateReader;
  /** `web3_clientVersion` answer. */
  clientVersion: string;
}

/** Builds the context of an opened chain. */
export async function createEthContext(chain: EthereumChain, clientVersion: string): Promise<EthContext> {
  const { StateReader } = await import('../state/stateReader.js');
  return { chain, state: new StateReader(chain.level), clientVersion };
}
