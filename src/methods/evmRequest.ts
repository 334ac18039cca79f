import type { BlockId } from '../codec/blockId.js';
import type { ClientSignal, RequestContext } from '../rpc/method.js';

/**
 * What the EVM workers' queue needs of a request: its abort signal (a queued job of a client that
 * went away never runs) and its identity (one message, batch included, is one owner, capped in
 * the workers it holds at once). Outside a request (tests, internal callers): neither.
 */
export function evmRequest(req: RequestContext | undefined): { signal?: ClientSignal; owner?: object } {
  return req === undefined ? {} : { signal: req.gone, owner: req };
}

/**
 * {@link evmRequest} for a run whose answer may be kept per block (eth_call's and eth_estimateGas's
 * caches): `cache` is false at `pending`, which is run each time (a node with a pool would answer
 * it from a block that changes).
 */
export function keptEvmRequest(req: RequestContext | undefined, block: BlockId | undefined): { signal?: ClientSignal; owner?: object; cache: boolean } {
  const cache = !(block?.kind === 'tag' && block.tag === 'pending');
  // A literal, not `{ ...evmRequest(req), cache }`: V8 (Node 20) spreads through its slow path,
  // ~2 % of a cached eth_call's CPU.
  return req === undefined ? { cache } : { signal: req.gone, owner: req, cache };
}
