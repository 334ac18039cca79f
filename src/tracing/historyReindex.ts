import type { EthereumChain } from '../chain/open.js';
import { blockHistory, historyHeadOp, readHistoryHead } from './addressHistory.js';
import { type ReindexOptions, reindexTracer } from './addressIndex.js';
import { historyBlockOps } from './blockIndexer.js';

/**
 * Completes the Otterscan address history (`addressHistory.ts`) of a datadir imported before it
 * existed: replays every canonical block above the history head up to the chain head and writes
 * its entries (replacing whatever its height held) with the new head, one batch per block.
 * Resumable, like {@link reindexTraceAddresses}: a second run continues where the first stopped.
 * Run by `tracenode reindex-traces` after the trace index (while the datadir is not served).
 */
export async function reindexAddressHistory(chain: EthereumChain, opts: ReindexOptions): Promise<{ indexed: number; head: bigint }> {
  const traceBlock = reindexTracer(chain, opts);
  const chainHead = (await chain.store.head())?.number ?? 0n;
  let head = await readHistoryHead(chain.level, chain.start?.number ?? 0n);
  let indexed = 0;
  while (head < chainHead && !opts.signal?.aborted) {
    const number = head + 1n;
    const block = await chain.store.blockByNumber(number);
    if (!block) throw new Error(`database corrupt: canonical block ${number} missing`);
    const ops = await historyBlockOps(chain, number, blockHistory(block, await traceBlock(block)));
    ops.push(historyHeadOp(number));
    await chain.level.batch(ops);
    head = number;
    indexed++;
    opts.onBlock?.(number, chainHead);
  }
  return { indexed, head };
}
