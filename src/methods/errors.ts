import { BeforeArchiveStartError } from '../chain/archiveStart.js';
import { bigIntToQuantity, bytesToData } from '../codec/hex.js';
import { CallError, type CallResult, ExecutionFailedError } from '../execution/callResult.js';
import { revertMessage } from '../execution/revert.js';
import { SimulateError, type SimulateErrorKind } from '../execution/simulate/errors.js';
import * as live from '../live/errors.js';
import {
  ExecutionRevertedError,
  LimitExceededError,
  PrunedHistoryError,
  ResourceUnavailableError,
  RpcError,
  ServerError,
  StarknetBlockNotFoundError,
  StarknetClassHashNotFoundError,
  StarknetContractNotFoundError,
  StarknetInvalidContinuationTokenError,
  StarknetInvalidTxnIndexError,
  StarknetNoBlocksError,
  StarknetPageSizeTooBigError,
  StarknetTooManyKeysInFilterError,
  StarknetTxnHashNotFoundError,
} from '../rpc/errors.js';
import * as starknet from '../starknet/errors.js';
import { MissingCodeError, MissingTrieNodeError, RemoteStateError } from '../state/stateSource.js';
import { JobAbortedError, PoolBusyError, PoolClosedError, WorkerCrashedError } from '../workers/pool.js';

/**
 * The one place domain errors become wire errors, as reth's `From<EthApiError> for ErrorObject`
 * does in a single `match` (paradigmxyz/reth `crates/rpc/rpc-eth-types/src/error/mod.rs`): the
 * domain layers throw their own plain errors, which know no JSON-RPC code, and this list gives
 * each its wire error. A method table applies it to whatever its handlers throw
 * (`createMethodTable(defs, toRpcError)` in `rpc/method.ts`).
 *
 * Returns undefined for anything else: an {@link RpcError} a method threw itself is sent as it
 * is, and any other error is a bug the dispatcher logs and answers with -32603.
 *
 * One line per domain error, grouped by domain layer; add new ones to the list.
 */
export function toRpcError(err: unknown): RpcError | undefined {
  // Call engine (`execution/callResult.ts`) → geth's eth_call / eth_estimateGas errors.
  if (err instanceof ExecutionFailedError) return failedRunError(err.result);
  if (err instanceof SimulateError) return new RpcError(SIMULATE_ERROR_CODES[err.kind], err.message);
  if (err instanceof CallError) return new ServerError(err.message);
  // EVM workers' admission (`workers/pool.ts`): the queue is full → -32005, as a rate limit is;
  // a lost worker, shutdown or a gone client → -32000 with the reason.
  if (err instanceof PoolBusyError) return new LimitExceededError(err.message);
  if (err instanceof WorkerCrashedError || err instanceof PoolClosedError || err instanceof JobAbortedError) return new ServerError(err.message);
  // An archive that starts at block N (`chain/archiveStart.ts`, `state/stateSource.ts`): below N,
  // geth's texts for pruned state (-32000 `missing trie node`) and pruned history (4444); state
  // the followed node could not give now → -32002 (retry later), state it no longer has → -32000.
  if (err instanceof BeforeArchiveStartError) return beforeStartError(err);
  if (err instanceof RemoteStateError) {
    return err.retryable ? new ResourceUnavailableError(err.message, { retryable: true }) : new ServerError(err.message);
  }
  if (err instanceof MissingTrieNodeError || err instanceof MissingCodeError) return new ServerError(err.message);
  // Starknet store and event query (`starknet/errors.ts`) → Starknet spec errors.
  if (err instanceof starknet.BlockNotFoundError) return new StarknetBlockNotFoundError();
  if (err instanceof starknet.PageSizeTooBigError) return new StarknetPageSizeTooBigError();
  if (err instanceof starknet.NoBlocksError) return new StarknetNoBlocksError();
  if (err instanceof starknet.InvalidContinuationTokenError) return new StarknetInvalidContinuationTokenError();
  if (err instanceof starknet.TooManyKeysInFilterError) return new StarknetTooManyKeysInFilterError();
  if (err instanceof starknet.TransactionNotFoundError) return new StarknetTxnHashNotFoundError();
  if (err instanceof starknet.InvalidTransactionIndexError) return new StarknetInvalidTxnIndexError();
  if (err instanceof starknet.ContractNotFoundError) return new StarknetContractNotFoundError();
  if (err instanceof starknet.ClassHashNotFoundError) return new StarknetClassHashNotFoundError();
  // What the store does not hold (and no upstream can give), or the upstream failing to give it → -32000 saying which.
  if (err instanceof starknet.NotHeldError || err instanceof starknet.StateSourceError) return new ServerError(err.message);
  // Subscriptions and filters (`live/errors.ts`): a cap reached → -32005, Infura's limit code (on
  // both network kinds); a filter refused → -32000 with geth's text. NoPendingTransactionsError is
  // mapped where it is caught (`eth/_shared/pendingRefusal.ts`): its text names the method.
  if (err instanceof live.TooManySubscriptionsError || err instanceof live.TooManyFiltersError) return new LimitExceededError(err.message);
  if (
    err instanceof live.FilterNotFoundError ||
    err instanceof live.FilterStoreUnavailableError ||
    err instanceof live.FilterContendedError ||
    err instanceof live.NoHeadYetError
  ) {
    return new ServerError(err.message);
  }
  return undefined;
}

/** A block below an archive's start: its state (-32000, geth's `missing trie node`) or its history (4444, geth's `pruned history unavailable`). */
function beforeStartError(err: BeforeArchiveStartError): RpcError {
  const data = { archiveStart: bigIntToQuantity(err.start) };
  return err.kind === 'state'
    ? new ServerError(`missing trie node: the state of block ${err.number} is not available, this archive starts at block ${err.start}`, data)
    : new PrunedHistoryError(`pruned history unavailable: block ${err.number} is before this archive's first block ${err.start}`, data);
}

/**
 * eth_simulateV1's refusals (`execution/simulate/errors.ts`) → geth's codes (ethereum/go-ethereum
 * `internal/ethapi/errors.go`): -38xxx for a message that cannot be included and for the chain's
 * order and size, -32602 for a tip above the fee cap, -32603 for any other invalid message.
 */
const SIMULATE_ERROR_CODES: Record<SimulateErrorKind, number> = {
  nonceTooLow: -38010,
  nonceTooHigh: -38011,
  baseFeeTooLow: -38012,
  intrinsicGas: -38013,
  insufficientFunds: -38014,
  blockGasLimitReached: -38015,
  blockNumberOrder: -38020,
  timestampOrder: -38021,
  maxInitCodeSizeExceeded: -38025,
  tooManyBlocks: -38026,
  tipAboveFeeCap: -32602,
  invalidTransaction: -32603,
};

/**
 * The wire error of a failed run, as geth sends it: a revert is code 3 with `execution reverted[:
 * <reason>]` and the revert bytes as `data` (always present, `0x` when empty); any other EVM
 * failure is -32000 with geth's text (`out of gas`, `invalid opcode: INVALID`, …).
 */
export function failedRunError(result: CallResult): RpcError {
  if (result.failure?.kind === 'revert') {
    return new ExecutionRevertedError(revertMessage(result.returnValue), bytesToData(result.returnValue));
  }
  return new ServerError(result.failure?.kind === 'halt' ? result.failure.message : 'execution failed');
}
