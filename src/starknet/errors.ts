import { DomainError } from '../errors/domainError.js';
/**
 * Errors of the Starknet store and its event query: plain domain errors that say what went wrong
 * in the store's terms, with no JSON-RPC code. `methods/errors.ts` (`toRpcError`) is the one place
 * that turns each into its Starknet wire error (`rpc/errors.ts`; codes and messages of
 * starkware-libs/starknet-specs `api/starknet_api_openrpc.json`, `components/errors`).
 */

/** A block named by number, hash or tag is not stored (or the tag names no block yet). */
export class BlockNotFoundError extends DomainError {
  override readonly name = 'BlockNotFoundError';
  /** The block as asked for, e.g. `number 1000`, `hash 0x…`, `tag l1_accepted`. */
  readonly block: string;
  constructor(block: string) {
    super(`block ${block} is not stored`);
    this.block = block;
  }
}

/** The store holds no block at all (the latest block was asked for). */
export class NoBlocksError extends DomainError {
  override readonly name = 'NoBlocksError';
  constructor() {
    super('the store holds no blocks');
  }
}

/** A page of events larger than the store serves was asked for. */
export class PageSizeTooBigError extends DomainError {
  override readonly name = 'PageSizeTooBigError';
  readonly requested: number;
  readonly limit: number;
  constructor(requested: number, limit: number) {
    super(`page size ${requested} is above the limit of ${limit}`);
    this.requested = requested;
    this.limit = limit;
  }
}

/** An event filter with more key positions than the store matches. */
export class TooManyKeysInFilterError extends DomainError {
  override readonly name = 'TooManyKeysInFilterError';
  readonly requested: number;
  readonly limit: number;
  constructor(requested: number, limit: number) {
    super(`${requested} key positions in the filter, above the limit of ${limit}`);
    this.requested = requested;
    this.limit = limit;
  }
}

/**
 * A continuation token that cannot be resumed from: unparsable, or not a position this filter's
 * pages could reach (another filter's or another range's token, or a made-up one).
 */
export class InvalidContinuationTokenError extends DomainError {
  override readonly name = 'InvalidContinuationTokenError';
  /** Why, for the log: the client always sees the same fixed message. */
  readonly reason: string;
  constructor(reason: string) {
    super(`invalid continuation token: ${reason}`);
    this.reason = reason;
  }
}

/** No stored transaction has this hash. */
export class TransactionNotFoundError extends DomainError {
  override readonly name = 'TransactionNotFoundError';
  constructor(hash: string) {
    super(`transaction ${hash} is not stored`);
  }
}

/** A stored block has no transaction at this index. */
export class InvalidTransactionIndexError extends DomainError {
  override readonly name = 'InvalidTransactionIndexError';
  constructor(block: string, index: number) {
    super(`block ${block} has no transaction ${index}`);
  }
}

/** No contract is deployed at this address at the block asked for. */
export class ContractNotFoundError extends DomainError {
  override readonly name = 'ContractNotFoundError';
  constructor(address: string, block: number) {
    super(`no contract at ${address} at block ${block}`);
  }
}

/** No class with this hash is declared at the block asked for. */
export class ClassHashNotFoundError extends DomainError {
  override readonly name = 'ClassHashNotFoundError';
  constructor(classHash: string, block: number) {
    super(`class ${classHash} is not declared at block ${block}`);
  }
}

/**
 * The store cannot say what was asked: the state of a block outside the blocks whose state
 * updates it holds, a state update it was not given, a value older than its first block with
 * state or a class definition when no upstream is followed to ask, or the chain id of an
 * imported datadir. The message says which, and what would give it.
 */
export class NotHeldError extends DomainError {
  override readonly name = 'NotHeldError';
}

/** The followed upstream did not give a value the store needed (unreachable, slow, malformed). */
export class StateSourceError extends DomainError {
  override readonly name = 'StateSourceError';
}
