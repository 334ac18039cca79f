import type { ClientSignal, RequestContext } from '../rpc/method.js';

/**
 * What the EVM workers' queue needs of a request: its abort signal (a queued job of a client that
 * went away never runs) and its identity (one message, batch included, is one owner, capped in
 * the workers it holds at once). Outside a request (tests, internal callers): neither.
 */
export function evmRequest(req: RequestContext | undefined): { signal?: ClientSignal; owner?: object } {
  return req === undefined ? {} : { signal: req.gone, owner: req };
}
