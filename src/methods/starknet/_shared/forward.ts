import { NotServedError, ServerError, UpstreamAnswerError } from '../../../rpc/errors.js';
import type { StarknetContext } from '../context.js';

/**
 * The Starknet methods this node answers by forwarding them to the upstream it follows: those
 * that need Starknet execution (there is no Cairo VM here), a mempool, L1 data or state tries.
 * The upstream's answer is relayed unchanged, its error too (code, message and data: a client
 * reads CONTRACT_ERROR or INSUFFICIENT_ACCOUNT_BALANCE as the upstream said them), as
 * `eth_sendRawTransaction` relays on the Ethereum side (`eth/_shared/upstreamPool.ts`). The
 * params go as the client gave them, by position or by name. Without an upstream the method is
 * -32601, saying why this node cannot answer it.
 */

/** Why a forwarded method cannot be answered here, by kind. */
export const NEEDS = {
  execution: 'it needs Starknet execution (no Cairo VM here)',
  mempool: 'it sends a transaction to a sequencer (this node keeps no mempool)',
  l1: 'it needs the L1 transactions that sent messages (this node reads none)',
  tries: 'it needs the state tries (this node stores state diffs only)',
  casm: 'it needs compiled classes (this node keeps none)',
} as const;

/** Forwards `method(params)` to the followed upstream; -32601 naming `needs` when there is none. */
export async function forwardToFollowed(ctx: StarknetContext, method: string, params: unknown, needs: string): Promise<unknown> {
  if (ctx.upstream === undefined)
    throw new NotServedError(`${method} is not served by this node: ${needs}, and this network follows no upstream to forward it to`);
  let answer: Awaited<ReturnType<NonNullable<StarknetContext['upstream']>['forward']>>;
  try {
    answer = await ctx.upstream.forward(method, params);
  } catch (err) {
    throw new ServerError(`the followed node did not answer ${method}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if ('error' in answer) throw new UpstreamAnswerError(answer.error.code, answer.error.message, answer.error.data);
  return answer.result;
}
