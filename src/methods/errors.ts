import type { BeforeArchiveStartError } from '../chain/archiveStart.js';
import { bigIntToQuantity, bytesToData } from '../codec/hex.js';
import { DomainError, type DomainErrorName } from '../errors/domainError.js';
import type { CallResult, ExecutionFailedError } from '../execution/callResult.js';
import { revertMessage } from '../execution/revert.js';
import type { SimulateError, SimulateErrorKind } from '../execution/simulate/errors.js';
import {
  ExecutionRevertedError,
  InvalidParamsError,
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
import type { RemoteStateError } from '../state/stateSource.js';

/**
 * The one place domain errors become wire errors, as reth's `From<EthApiError> for ErrorObject`
 * does in a single `match` (paradigmxyz/reth `crates/rpc/rpc-eth-types/src/error/mod.rs`): the
 * domain layers throw their own plain errors ({@link DomainError}), which know no JSON-RPC code,
 * and {@link WIRE} gives each its wire error. A method table applies it to whatever its handlers
 * throw (`createMethodTable(defs, toRpcError)` in `rpc/method.ts`).
 *
 * Returns undefined for anything else (an {@link RpcError} a method threw itself is sent as it is;
 * any other error is a bug the dispatcher logs and answers with -32603), and for the domain errors
 * {@link WIRE} marks {@link INTERNAL}.
 */
export function toRpcError(err: unknown): RpcError | undefined {
  if (!(err instanceof DomainError)) return undefined;
  return (WIRE[err.name] as (e: DomainError) => RpcError | undefined)(err);
}

/** The classes whose wire error reads their fields, by the name they give themselves (`errors.test.ts` holds each name to its class). */
interface Narrowed {
  ExecutionFailedError: ExecutionFailedError;
  SimulateError: SimulateError;
  BeforeArchiveStartError: BeforeArchiveStartError;
  RemoteStateError: RemoteStateError;
  SiblingSearchError: RemoteStateError;
}

/** What maps one domain error: its wire error, or undefined for {@link INTERNAL}. */
type WireOf<K extends DomainErrorName> = (err: K extends keyof Narrowed ? Narrowed[K] : DomainError) => RpcError | undefined;

/**
 * A domain error that reaches no method: it belongs to `init`, `import`, the follower or the store's
 * opening, which report it in their own terms. Should one reach a handler, that is a bug: the
 * dispatcher logs it and answers -32603, as for any error it does not know.
 */
const INTERNAL = (): undefined => undefined;

/** -32000 with the error's own text. */
const server = (err: DomainError): RpcError => new ServerError(err.message);

/**
 * Every domain error's wire answer, by its name: the compiler refuses this table if a name of
 * {@link DomainErrorName} is missing, so a new domain error cannot fall through to "internal
 * error" unnoticed.
 */
const WIRE: { readonly [K in DomainErrorName]: WireOf<K> } = {
  // Call engine (`execution/`) → geth's eth_call / eth_estimateGas / debug_trace* errors.
  ExecutionFailedError: (err) => failedRunError(err.result),
  SimulateError: (err) => new RpcError(SIMULATE_ERROR_CODES[err.kind], err.message),
  CallError: server,
  MessageError: server,
  CallTimeoutError: server,
  TraceTimeoutError: server,
  // A trace over `tracing.debugMaxResultBytes` (`tracing/debug/run.ts` words it for the client first).
  TraceTooLargeError: server,
  // EVM workers' admission (`workers/pool.ts`): the queue is full → -32005, as a rate limit is;
  // a lost worker, shutdown or a gone client → -32000 with the reason.
  PoolBusyError: (err) => new LimitExceededError(err.message),
  WorkerCrashedError: server,
  PoolClosedError: server,
  JobAbortedError: server,
  // An archive that starts at block N (`chain/archiveStart.ts`, `state/stateSource.ts`): below N,
  // geth's texts for pruned state (-32000 `missing trie node`) and pruned history (4444); state
  // the followed node could not give now → -32002 (retry later), state it no longer has → -32000.
  BeforeArchiveStartError: beforeStartError,
  RemoteStateError: remoteStateError,
  SiblingSearchError: remoteStateError,
  MissingTrieNodeError: server,
  MissingCodeError: server,
  // Starknet store and event query (`starknet/errors.ts`) → Starknet spec errors.
  BlockNotFoundError: () => new StarknetBlockNotFoundError(),
  PageSizeTooBigError: () => new StarknetPageSizeTooBigError(),
  NoBlocksError: () => new StarknetNoBlocksError(),
  InvalidContinuationTokenError: () => new StarknetInvalidContinuationTokenError(),
  TooManyKeysInFilterError: () => new StarknetTooManyKeysInFilterError(),
  TransactionNotFoundError: () => new StarknetTxnHashNotFoundError(),
  InvalidTransactionIndexError: () => new StarknetInvalidTxnIndexError(),
  ContractNotFoundError: () => new StarknetContractNotFoundError(),
  ClassHashNotFoundError: () => new StarknetClassHashNotFoundError(),
  // What the store does not hold (and no upstream can give), or the upstream failing to give it → -32000 saying which.
  NotHeldError: server,
  StateSourceError: server,
  // A felt the params' schemas did not catch (they turn FeltError into -32602 themselves).
  FeltError: (err) => new InvalidParamsError(err.message),
  // Subscriptions and filters (`live/errors.ts`): a cap reached → -32005, Infura's limit code (on
  // both network kinds); a filter refused → -32000 with geth's text.
  TooManySubscriptionsError: (err) => new LimitExceededError(err.message),
  TooManyFiltersError: (err) => new LimitExceededError(err.message),
  FilterNotFoundError: server,
  FilterStoreUnavailableError: server,
  FilterContendedError: server,
  NoHeadYetError: server,
  // Mapped where it is caught (`eth/_shared/pendingRefusal.ts`): its text names the method.
  NoPendingTransactionsError: INTERNAL,
  // A block breaking a system call's rules, or an OP block that cannot be decoded or run, is
  // refused by import and the follower, before it is stored: no stored block can raise them.
  SystemCallError: INTERNAL,
  DepositDecodeError: INTERNAL,
  OpBlockError: INTERNAL,
  // The datadir, import and follower (`db/`, `chain/open.ts`, `import/`, `follow/`, the Starknet
  // importer): they stop the command or retry, and are reported in logs and on stderr.
  SchemaError: INTERNAL,
  SnapshotError: INTERNAL,
  NotInitialisedError: INTERNAL,
  DatadirKindError: INTERNAL,
  StarknetImportError: INTERNAL,
  InvalidBlockError: INTERNAL,
  UpstreamError: INTERNAL,
  UpstreamRpcError: INTERNAL,
  BlockFromRpcError: INTERNAL,
  GenesisAnchorError: INTERNAL,
  FollowStoppedError: INTERNAL,
};

/** State that is not held locally and could not be fetched: -32002 (retry later) when asking again may help, else -32000. */
function remoteStateError(err: RemoteStateError): RpcError {
  return err.retryable ? new ResourceUnavailableError(err.message, { retryable: true }) : new ServerError(err.message);
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
