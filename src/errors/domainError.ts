/**
 * The domain layers' errors as one closed set. Every error class of a domain layer (db, chain,
 * state, execution, tracing, workers, starknet, import, follow, live) extends {@link DomainError}
 * and names itself, in `name`, with a key of {@link DomainErrorNames}. `methods/errors.ts` holds the
 * wire answer of each name in a table the compiler checks for completeness, so:
 *
 * - a class that names itself with a name missing here does not compile (its `name` is not a
 *   DomainErrorName);
 * - a class that names nothing does not compile (`name` is abstract);
 * - a name added here (or by augmenting the interface) without its wire answer in
 *   `methods/errors.ts` does not compile;
 * - a class that extends plain `Error` in a domain layer fails `methods/errors.test.ts`.
 *
 * Nothing a handler lets through becomes an "internal error" by omission: the table says, for each
 * name, what the client is told, or that reaching a method is a bug (logged, -32603).
 */
export interface DomainErrorNames {
  // db
  SchemaError: true;
  SnapshotError: true;
  // chain
  NotInitialisedError: true;
  BeforeArchiveStartError: true;
  // state
  MissingTrieNodeError: true;
  MissingCodeError: true;
  RemoteStateError: true;
  SiblingSearchError: true;
  // execution
  CallError: true;
  MessageError: true;
  CallTimeoutError: true;
  ExecutionFailedError: true;
  SimulateError: true;
  SystemCallError: true;
  DepositDecodeError: true;
  OpBlockError: true;
  // tracing
  TraceTimeoutError: true;
  TraceTooLargeError: true;
  // workers
  PoolBusyError: true;
  WorkerCrashedError: true;
  PoolClosedError: true;
  JobAbortedError: true;
  // starknet
  BlockNotFoundError: true;
  NoBlocksError: true;
  PageSizeTooBigError: true;
  TooManyKeysInFilterError: true;
  InvalidContinuationTokenError: true;
  TransactionNotFoundError: true;
  InvalidTransactionIndexError: true;
  ContractNotFoundError: true;
  ClassHashNotFoundError: true;
  NotHeldError: true;
  StateSourceError: true;
  FeltError: true;
  DatadirKindError: true;
  StarknetImportError: true;
  // import
  InvalidBlockError: true;
  // follow
  UpstreamError: true;
  UpstreamRpcError: true;
  BlockFromRpcError: true;
  GenesisAnchorError: true;
  FollowStoppedError: true;
  // live
  TooManySubscriptionsError: true;
  TooManyFiltersError: true;
  FilterNotFoundError: true;
  FilterStoreUnavailableError: true;
  FilterContendedError: true;
  NoHeadYetError: true;
  NoPendingTransactionsError: true;
}

/** The name of a domain error: a key of {@link DomainErrorNames}. */
export type DomainErrorName = keyof DomainErrorNames;

/**
 * The base of every domain error: a plain Error (no JSON-RPC code: that is `methods/`'s business)
 * whose `name` is one of {@link DomainErrorName}. A class that others extend declares the union
 * of its own and its subclasses' names (`CallError`: `'CallError' | 'MessageError' | …`).
 */
export abstract class DomainError extends Error {
  abstract override readonly name: DomainErrorName;
}
