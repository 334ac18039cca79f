import type { MethodDefinition } from '../rpc/method.js';
import type { EthContext } from './context.js';
import { blockNumber } from './eth/blockNumber.js';
import { chainId } from './eth/chainId.js';
import { version } from './net/version.js';
import { clientVersion } from './web3/clientVersion.js';

/** Chain identity and head, sorted by wire name. */
export const coreMethods: readonly MethodDefinition<EthContext>[] = [
  blockNumber, // eth_blockNumber
  chainId, // eth_chainId
  version, // net_version
  clientVersion, // web3_clientVersion
];
