import { NoPendingTransactionsError } from '../../../live/errors.js';
import { MethodNotSupportedError } from '../../../rpc/errors.js';

/**
 * The wire refusal (-32004) of `what` (a method or subscription name) when `err` says the pending
 * relay has nothing to relay; undefined for any other error. Mapped where it is caught, because
 * the text names what was asked for.
 */
export function pendingRefusal(what: string, err: unknown): MethodNotSupportedError | undefined {
  return err instanceof NoPendingTransactionsError ? new MethodNotSupportedError(`${what} is not supported: ${err.reason}`) : undefined;
}
