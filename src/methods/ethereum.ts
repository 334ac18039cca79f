import { createMethodTable, type MethodApi, type MethodTable, type RaisesOf } from '../rpc/method.js';
import { blockMethods } from './blocks.js';
import { callMethods } from './callMethods.js';
import type { EthContext } from './context.js';
import { coreMethods } from './coreMethods.js';
import { debugMethods } from './debugMethods.js';
import { toRpcError } from './errors.js';
import { otsMethods } from './otsMethods.js';
import type { DomainErrorsOnly } from './raises.js';
import { stateMethods } from './stateMethods.js';
import { subscriptionMethods } from './subscriptionMethods.js';
import { traceMethods } from './traceMethods.js';

/**
 * Every method an Ethereum network serves; anything else is -32601. The groups, each a module that
 * lists its definitions one per line, sorted by wire name:
 * - `coreMethods`: the chain and the node (eth_blockNumber, eth_chainId, eth_config, net_version, web3_*…);
 * - `stateMethods`: account and storage reads at a block, and proofs (eth_get{Balance,Code,StorageAt,Proof,…});
 * - `blockMethods`: blocks, transactions, receipts, logs, uncles, fees, sending (relayed to the
 *   followed node) and the signing refusals;
 * - `callMethods`: the EVM over a block's state (eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1);
 * - `traceMethods`: Parity traces (trace_*); `debugMethods`: geth's raw getters and tracers (debug_*);
 * - `otsMethods`: Otterscan's API (ots_*, erigon_getHeaderByNumber), from the address history and the call trees;
 * - `subscriptionMethods`: eth_subscribe over WebSocket and the polled filters.
 * Domain errors the handlers' layers throw become wire errors through `toRpcError`.
 */
export const ethereumDefinitions = [
  ...coreMethods,
  ...stateMethods,
  ...blockMethods,
  ...callMethods,
  ...traceMethods,
  ...debugMethods,
  ...otsMethods,
  ...subscriptionMethods,
] as const;

export const ethereumMethods: MethodTable<EthContext> = createMethodTable<EthContext>(ethereumDefinitions, toRpcError);

/**
 * What an Ethereum network serves, by wire name: each method's wire arguments and result, as the
 * compiler knows them from the definitions. The tests' typed clients are built from it.
 */
export type EthereumApi = MethodApi<typeof ethereumDefinitions>;

/** The domain errors Ethereum's methods declare (`raises`): a name that is no domain error's does not compile. */
export type EthereumRaises = DomainErrorsOnly<RaisesOf<typeof ethereumDefinitions>>;
