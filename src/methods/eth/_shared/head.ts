import type { Head } from '../../../chain/store.js';
import { ServerError } from '../../../rpc/errors.js';
import type { RequestContext } from '../../../rpc/method.js';
import type { EthContext } from '../../context.js';

/**
 * The head a request sees: its snapshot, read once per request (so every part of an answer, and
 * every call of a batch, agrees even while the head moves), or the store's head when a method is
 * called outside a request.
 */
export function headOf(ctx: EthContext, req: RequestContext<Head> | undefined): Promise<Head | undefined> {
  return req ? req.head() : ctx.chain.store.head();
}

/**
 * Throws when the client that asked has gone away: long scans (eth_getLogs, trace_filter) call it
 * between blocks, so their work stops with the connection. Nobody reads the error.
 */
export function throwIfAborted(req: RequestContext | undefined): void {
  if (req?.signal.aborted) throw new ServerError('request aborted: the client went away');
}
