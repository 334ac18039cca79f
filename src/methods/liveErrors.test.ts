import { describe, expect, it } from 'vitest';
import {
  FilterContendedError,
  FilterNotFoundError,
  FilterStoreUnavailableError,
  NoHeadYetError,
  NoPendingTransactionsError,
  TooManyFiltersError,
  TooManySubscriptionsError,
} from '../live/errors.js';
import { toRpcError } from './errors.js';
import { pendingRefusal } from './eth/_shared/pendingRefusal.js';

/** The live layer's refusals on the wire: the codes and texts clients were given before the layer had errors of its own. */
describe('live errors on the wire', () => {
  it('toRpcError: the caps are -32005, the filter refusals -32000 with geth’s text', () => {
    const wire = (err: unknown) => toRpcError(err)?.toJSON();
    expect(wire(new TooManySubscriptionsError(100))).toEqual({ code: -32005, message: 'too many subscriptions on this connection (limit 100)' });
    expect(wire(new TooManyFiltersError(3))).toEqual({ code: -32005, message: 'too many filters for this key (limit 3); uninstall unused ones' });
    expect(wire(new FilterNotFoundError())).toEqual({ code: -32000, message: 'filter not found' });
    expect(wire(new FilterStoreUnavailableError())).toEqual({
      code: -32000,
      message: 'filters are unavailable: the shared filter store (Redis) does not answer',
    });
    expect(wire(new FilterContendedError())).toEqual({ code: -32000, message: 'filter polled too often at once; try again' });
    expect(wire(new NoHeadYetError())).toEqual({ code: -32000, message: 'no block yet' });
  });

  it('pendingRefusal: -32004 naming what was refused; other errors are not its', () => {
    const err = new NoPendingTransactionsError('this node has no transaction pool and follows no node that has one');
    expect(pendingRefusal('newPendingTransactions', err)?.toJSON()).toEqual({
      code: -32004,
      message: 'newPendingTransactions is not supported: this node has no transaction pool and follows no node that has one',
    });
    expect(pendingRefusal('eth_newPendingTransactionFilter', new Error('x'))).toBeUndefined();
    expect(toRpcError(err)).toBeUndefined();
  });
});
