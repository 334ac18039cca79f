import { NoPendingTransactionsError } from '../errors.js';

/**
 * Pending transactions, relayed from the followed upstream node. This node has no transaction
 * pool of its own; the node it follows (geth, reth, anvil) usually has one. While anyone listens
 * (a `newPendingTransactions` subscription, an `eth_newPendingTransactionFilter` filter), the
 * relay holds one pending-transaction filter on the upstream and polls it; each batch of hashes is
 * handed to every listener. With no listener left it stops polling (the upstream drops its filter
 * after its own timeout). The upstream's answers are hashes the upstream vouches for, nothing
 * this node verified: a pending transaction is by definition in no block yet.
 *
 * When nothing is followed, or the upstream has no pool (it refuses the filter), listening is
 * refused with {@link NoPendingTransactionsError} saying so: a subscription that could never fire
 * would leave the client waiting for nothing.
 */

/** A JSON-RPC call to the upstream (its result, or a rejection). */
export type UpstreamCall = (method: string, params: unknown[]) => Promise<unknown>;

export type PendingListener = (hashes: readonly string[]) => void;

export interface PendingSource {
  /**
   * Adds a listener once the upstream's filter exists; resolves its removal. Rejects with
   * {@link NoPendingTransactionsError} when there is nothing to relay.
   */
  listen(listener: PendingListener): Promise<() => void>;
}

/** The source of a network that follows nothing: every listener is refused. */
export const NO_PENDING_SOURCE: PendingSource = {
  listen: () => Promise.reject(new NoPendingTransactionsError('this node has no transaction pool and follows no node that has one')),
};

const HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * A relay over `call` (the upstream), polling every `pollMs`. `onError` hears of failed polls
 * (the relay goes on, and makes a new upstream filter after one is lost).
 */
export function createPendingRelay(call: UpstreamCall, pollMs: number, onError?: (err: unknown) => void): PendingSource {
  const listeners = new Set<PendingListener>();
  let filterId: Promise<string> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const upstreamFilter = (): Promise<string> => {
    filterId ??= call('eth_newPendingTransactionFilter', []).then(
      (id) => {
        if (typeof id !== 'string') throw new Error('the upstream answered eth_newPendingTransactionFilter without a filter id');
        return id;
      },
      (err: unknown) => {
        filterId = undefined;
        throw err;
      },
    );
    return filterId;
  };

  const poll = async (): Promise<void> => {
    timer = undefined;
    if (listeners.size === 0) return;
    try {
      const id = await upstreamFilter();
      const changes = await call('eth_getFilterChanges', [id]);
      const hashes = Array.isArray(changes) ? changes.filter((h): h is string => typeof h === 'string' && HASH.test(h)).map((h) => h.toLowerCase()) : [];
      if (hashes.length > 0) for (const l of [...listeners]) l(hashes);
    } catch (err) {
      // A lost filter (the upstream restarted, or expired it): make a new one next time.
      filterId = undefined;
      onError?.(err);
    }
    schedule();
  };

  const schedule = (): void => {
    if (timer === undefined && listeners.size > 0) {
      timer = setTimeout(() => void poll(), pollMs);
      timer.unref();
    }
  };

  return {
    async listen(listener) {
      try {
        await upstreamFilter();
      } catch (err) {
        onError?.(err);
        throw new NoPendingTransactionsError(
          'this node has no transaction pool, and the node it follows offers none (eth_newPendingTransactionFilter failed there)',
        );
      }
      listeners.add(listener);
      schedule();
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
