import type { EthereumChain } from '../chain/open.js';

/** What Ethereum method handlers may use. Built once per network by the CLI. */
export interface EthContext {
  chain: EthereumChain;
  /** `web3_clientVersion` answer. */
  clientVersion: string;
}
