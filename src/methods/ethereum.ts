import { type MethodTable, createMethodTable } from '../rpc/method.js';
import type { EthContext } from './context.js';
import { blockNumber } from './eth/blockNumber.js';
import { chainId } from './eth/chainId.js';
import { version } from './net/version.js';
import { clientVersion } from './web3/clientVersion.js';

/** Every method an Ethereum network serves, sorted by wire name. Anything else is -32601. */
export const ethereumMethods: MethodTable<EthContext> = createMethodTable<EthContext>([
  blockNumber, // eth_blockNumber
  chainId, // eth_chainId
  version, // net_version
  clientVersion, // web3_clientVersion
]);
