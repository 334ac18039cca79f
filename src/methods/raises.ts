import type { DomainErrorName } from '../errors/domainError.js';

/**
 * The domain errors a method may let through (its definition's `raises`), by what the method
 * does: pathfinder's per-method error sets, written once per kind of work. Each set names domain
 * errors only (the compiler checks it against `DomainErrorName`); `errors.ts` gives each its wire
 * answer; the dispatcher warns about an error a method lets through undeclared (answered all
 * the same), and the execution-apis conformance run fails on such a warning.
 */

type Raises = readonly DomainErrorName[];

/** `T`, when every name in it is a domain error's: what a network's table declares, checked (`ethereum.ts`, `starknet.ts`). */
export type DomainErrorsOnly<T extends DomainErrorName> = T;

/** A block, its transactions or receipts, read below an archive's first block (4444 pruned history). */
export const HISTORY = ['BeforeArchiveStartError'] as const satisfies Raises;

/** State read at a block: below an archive's start, a node missing from the trie, state the followed node could not give. */
export const STATE = [
  'BeforeArchiveStartError',
  'MissingTrieNodeError',
  'MissingCodeError',
  'RemoteStateError',
  'SiblingSearchError',
] as const satisfies Raises;

/** A run on an EVM worker over a block's state: the call's own failures, and the pool's. */
export const EVM_RUN = [
  ...STATE,
  'ExecutionFailedError',
  'CallError',
  'MessageError',
  'CallTimeoutError',
  'PoolBusyError',
  'WorkerCrashedError',
  'PoolClosedError',
  'JobAbortedError',
] as const satisfies Raises;

/** eth_simulateV1: a run, and the simulation's own refusals (geth's -38xxx). */
export const SIMULATION = [...EVM_RUN, 'SimulateError'] as const satisfies Raises;

/** A block or transaction replayed with a tracer (its deadline and result size too). */
export const REPLAY = [...EVM_RUN, 'TraceTimeoutError', 'TraceTooLargeError'] as const satisfies Raises;

/** A polled filter: installed, found, shared through Redis. */
export const FILTER = [
  'FilterNotFoundError',
  'TooManyFiltersError',
  'FilterStoreUnavailableError',
  'FilterContendedError',
  'NoHeadYetError',
] as const satisfies Raises;

/** A polled log filter's logs: the filter, and the blocks it reads. */
export const FILTER_LOGS = [...FILTER, ...HISTORY] as const satisfies Raises;

/** A WebSocket subscription. */
export const SUBSCRIPTION = ['TooManySubscriptionsError'] as const satisfies Raises;

/** Nothing: the method answers from the node itself, or relays the followed node's answer as it is. */
export const NONE = [] as const satisfies Raises;

/** A Starknet block, transaction or receipt read from the store. */
export const STARKNET_READ = [
  'BlockNotFoundError',
  'NoBlocksError',
  'NotHeldError',
  'TransactionNotFoundError',
  'InvalidTransactionIndexError',
  'FeltError',
] as const satisfies Raises;

/** Starknet state at a block: the store's, or fetched from the followed node. */
export const STARKNET_STATE = [...STARKNET_READ, 'ContractNotFoundError', 'ClassHashNotFoundError', 'StateSourceError'] as const satisfies Raises;

/** starknet_getEvents: blocks, and the query's own bounds. */
export const STARKNET_EVENTS = [...STARKNET_READ, 'PageSizeTooBigError', 'InvalidContinuationTokenError', 'TooManyKeysInFilterError'] as const satisfies Raises;

/** A Starknet subscription: its cap, and the blocks its start reads. */
export const STARKNET_SUBSCRIPTION = [...STARKNET_READ, 'TooManySubscriptionsError'] as const satisfies Raises;
