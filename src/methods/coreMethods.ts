import type { MethodDefinition } from '../rpc/method.js';
import type { EthContext } from './context.js';
import { blockNumber } from './eth/blockNumber.js';
import { chainId } from './eth/chainId.js';
import { config } from './eth/config.js';
import { protocolVersion } from './eth/protocolVersion.js';
import { version } from './net/version.js';
import { clientVersion } from './web3/clientVersion.js';
import { sha3 } from './web3/sha3.js';

/** Chain identity and head, sorted by wire name. */
export const coreMethods = [
  blockNumber, // eth_blockNumber
  chainId, // eth_chainId
  config, // eth_config
  protocolVersion, // eth_protocolVersion
  version, // net_version
  clientVersion, // web3_clientVersion
  sha3, // web3_sha3
] as const satisfies readonly MethodDefinition<EthContext>[];
