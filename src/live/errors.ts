/**
 * The refusals of the live layer (subscriptions, polled filters, the pending relay). They know no
 * JSON-RPC code: `methods/errors.ts` gives each its wire error, the way the other domain layers'
 * errors are mapped. Each message is the text the client is shown.
 */

import { DomainError } from '../errors/domainError.js';

/** A connection already holds as many subscriptions as it may (`subscriptions.maxPerConnection`). */
export class TooManySubscriptionsError extends DomainError {
  override readonly name = 'TooManySubscriptionsError';
  constructor(readonly limit: number) {
    super(`too many subscriptions on this connection (limit ${limit})`);
  }
}

/** A key already holds as many filters as it may (`subscriptions.filtersPerKey`). */
export class TooManyFiltersError extends DomainError {
  override readonly name = 'TooManyFiltersError';
  constructor(readonly limit: number) {
    super(`too many filters for this key (limit ${limit}); uninstall unused ones`);
  }
}

/**
 * No filter of that id for this key: never made, made by another key, expired, or dropped after
 * it overflowed. geth's text (`eth/filters/api.go`, errFilterNotFound).
 */
export class FilterNotFoundError extends DomainError {
  override readonly name = 'FilterNotFoundError';
  constructor() {
    super('filter not found');
  }
}

/** The shared filter store (Redis) does not answer. */
export class FilterStoreUnavailableError extends DomainError {
  override readonly name = 'FilterStoreUnavailableError';
  constructor() {
    super('filters are unavailable: the shared filter store (Redis) does not answer');
  }
}

/** A shared filter lost its compare-and-set to other polls of it too many times in a row. */
export class FilterContendedError extends DomainError {
  override readonly name = 'FilterContendedError';
  constructor() {
    super('filter polled too often at once; try again');
  }
}

/** A shared filter cannot be made before this replica holds a block (its cursor starts at the head). */
export class NoHeadYetError extends DomainError {
  override readonly name = 'NoHeadYetError';
  constructor() {
    super('no block yet');
  }
}

/**
 * The pending relay has nothing to relay (no followed node, or one without a pool). The wire
 * text names the method or subscription refused, so the method that asked maps it
 * (`methods/eth/_shared/pendingRefusal.ts`); `reason` completes "… is not supported: ".
 */
export class NoPendingTransactionsError extends DomainError {
  override readonly name = 'NoPendingTransactionsError';
  constructor(readonly reason: string) {
    super(reason);
  }
}
