import { ServerError, UpstreamAnswerError } from '../../../rpc/errors.js';

/**
 * The node this network follows, for what only a node with a transaction pool can answer: sending
 * a transaction, the nonce that counts the sender's pending transactions, a transaction not yet
 * mined. Absent when nothing is followed. Its answers are the upstream's word: they are relayed,
 * or checked against their hash where they carry data (a pending transaction), never mixed into
 * the verified chain.
 */
export interface UpstreamPool {
  /** One call's answer as the upstream gave it; rejects when no well-formed answer came. */
  forward(method: string, params: unknown[]): Promise<{ result: unknown } | { error: { code: number; message: string; data?: unknown } }>;
}

/**
 * The upstream's result of `method(params)`. Its JSON-RPC error is thrown as it gave it
 * ({@link UpstreamAnswerError}: code, message, data); no answer at all (unreachable, timed out,
 * garbage) is -32000 saying which method went unanswered and why.
 */
export async function forwardToUpstream(pool: UpstreamPool, method: string, params: unknown[]): Promise<unknown> {
  let answer: Awaited<ReturnType<UpstreamPool['forward']>>;
  try {
    answer = await pool.forward(method, params);
  } catch (err) {
    throw new ServerError(`the followed node did not answer ${method}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if ('error' in answer) throw new UpstreamAnswerError(answer.error.code, answer.error.message, answer.error.data);
  return answer.result;
}
