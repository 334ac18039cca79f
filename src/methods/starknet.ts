import { createMethodTable, type MethodApi, type MethodTable, type RaisesOf } from '../rpc/method.js';
import { toRpcError } from './errors.js';
import type { DomainErrorsOnly } from './raises.js';
import { addDeclareTransaction } from './starknet/addDeclareTransaction.js';
import { addDeployAccountTransaction } from './starknet/addDeployAccountTransaction.js';
import { addInvokeTransaction } from './starknet/addInvokeTransaction.js';
import { blockHashAndNumber } from './starknet/blockHashAndNumber.js';
import { blockNumber } from './starknet/blockNumber.js';
import { call } from './starknet/call.js';
import { chainId } from './starknet/chainId.js';
import type { StarknetContext } from './starknet/context.js';
import { estimateFee } from './starknet/estimateFee.js';
import { estimateMessageFee } from './starknet/estimateMessageFee.js';
import { getBlockTransactionCount } from './starknet/getBlockTransactionCount.js';
import { getBlockWithReceipts } from './starknet/getBlockWithReceipts.js';
import { getBlockWithTxHashes } from './starknet/getBlockWithTxHashes.js';
import { getBlockWithTxs } from './starknet/getBlockWithTxs.js';
import { getClass } from './starknet/getClass.js';
import { getClassAt } from './starknet/getClassAt.js';
import { getClassHashAt } from './starknet/getClassHashAt.js';
import { getCompiledCasm } from './starknet/getCompiledCasm.js';
import { getEvents } from './starknet/getEvents.js';
import { getMessagesStatus } from './starknet/getMessagesStatus.js';
import { getNonce } from './starknet/getNonce.js';
import { getStateUpdate } from './starknet/getStateUpdate.js';
import { getStorageAt } from './starknet/getStorageAt.js';
import { getStorageProof } from './starknet/getStorageProof.js';
import { getTransactionByBlockIdAndIndex } from './starknet/getTransactionByBlockIdAndIndex.js';
import { getTransactionByHash } from './starknet/getTransactionByHash.js';
import { getTransactionReceipt } from './starknet/getTransactionReceipt.js';
import { getTransactionStatus } from './starknet/getTransactionStatus.js';
import { simulateTransactions } from './starknet/simulateTransactions.js';
import { specVersion } from './starknet/specVersion.js';
import { subscribeEvents } from './starknet/subscribeEvents.js';
import { subscribeNewHeads } from './starknet/subscribeNewHeads.js';
import { syncing } from './starknet/syncing.js';
import { traceBlockTransactions } from './starknet/traceBlockTransactions.js';
import { traceTransaction } from './starknet/traceTransaction.js';
import { unsubscribe } from './starknet/unsubscribe.js';

/**
 * The Starknet method table, and the context API the CLI builds networks with (re-exported from
 * `starknet/context.ts`, where the method files import it from).
 */
export { closeStarknetContext, createStarknetContext, type StarknetContext, type StarknetUpstream, starknetHead } from './starknet/context.js';
export { STARKNET_SPEC_VERSION } from './starknet/specVersion.js';

/**
 * Every method a Starknet network serves, sorted by wire name (Starknet JSON-RPC 0.8.1, and the
 * WebSocket subscriptions). Anything else is -32601. `local` methods answer from the store;
 * `forwarded` ones go to the followed upstream (-32601 `not served by this node` without one).
 * Domain errors the handlers let through become Starknet wire errors in `toRpcError` (`errors.ts`).
 */
export const starknetDefinitions = [
  addDeclareTransaction, // starknet_addDeclareTransaction (forwarded)
  addDeployAccountTransaction, // starknet_addDeployAccountTransaction (forwarded)
  addInvokeTransaction, // starknet_addInvokeTransaction (forwarded)
  blockHashAndNumber, // starknet_blockHashAndNumber
  blockNumber, // starknet_blockNumber
  call, // starknet_call (forwarded)
  chainId, // starknet_chainId
  estimateFee, // starknet_estimateFee (forwarded)
  estimateMessageFee, // starknet_estimateMessageFee (forwarded)
  getBlockTransactionCount, // starknet_getBlockTransactionCount
  getBlockWithReceipts, // starknet_getBlockWithReceipts
  getBlockWithTxHashes, // starknet_getBlockWithTxHashes
  getBlockWithTxs, // starknet_getBlockWithTxs
  getClass, // starknet_getClass
  getClassAt, // starknet_getClassAt
  getClassHashAt, // starknet_getClassHashAt
  getCompiledCasm, // starknet_getCompiledCasm (forwarded)
  getEvents, // starknet_getEvents
  getMessagesStatus, // starknet_getMessagesStatus (forwarded)
  getNonce, // starknet_getNonce
  getStateUpdate, // starknet_getStateUpdate
  getStorageAt, // starknet_getStorageAt
  getStorageProof, // starknet_getStorageProof (forwarded)
  getTransactionByBlockIdAndIndex, // starknet_getTransactionByBlockIdAndIndex
  getTransactionByHash, // starknet_getTransactionByHash
  getTransactionReceipt, // starknet_getTransactionReceipt
  getTransactionStatus, // starknet_getTransactionStatus (a transaction not stored: asked of the upstream)
  simulateTransactions, // starknet_simulateTransactions (forwarded)
  specVersion, // starknet_specVersion
  subscribeEvents, // starknet_subscribeEvents (WebSocket)
  subscribeNewHeads, // starknet_subscribeNewHeads (WebSocket)
  syncing, // starknet_syncing
  traceBlockTransactions, // starknet_traceBlockTransactions (forwarded)
  traceTransaction, // starknet_traceTransaction (forwarded)
  unsubscribe, // starknet_unsubscribe (WebSocket)
] as const;

export const starknetMethods: MethodTable<StarknetContext> = createMethodTable<StarknetContext>(starknetDefinitions, toRpcError);

/** What a Starknet network serves, by wire name: each method's wire arguments and result (the tests' typed clients are built from it). */
export type StarknetApi = MethodApi<typeof starknetDefinitions>;

/** The domain errors Starknet's methods declare (`raises`): a name that is no domain error's does not compile. */
export type StarknetRaises = DomainErrorsOnly<RaisesOf<typeof starknetDefinitions>>;
