import { ServerError } from '../../../rpc/errors.js';
import { readHistoryHead } from '../../../tracing/addressHistory.js';
import type { EthContext, EthRequest } from '../../context.js';
import { headOf } from '../../eth/_shared/head.js';

/**
 * The head a history lookup answers at, once the address history is known to cover it. A datadir
 * imported before the history existed holds none for its older blocks: rather than answer with a
 * silently short history, the methods that read it refuse until `tracenode reindex-traces` has
 * built it (import and following keep it complete from then on).
 */
export async function historyHead(ctx: EthContext, req: EthRequest | undefined): Promise<bigint> {
  const head = (await headOf(ctx, req))?.number ?? 0n;
  const indexed = await readHistoryHead(ctx.chain.level, ctx.chain.start?.number ?? 0n);
  if (indexed < head) {
    throw new ServerError(`the address history is built up to block ${indexed} of ${head}: run tracenode reindex-traces on this datadir to complete it`);
  }
  return head;
}
