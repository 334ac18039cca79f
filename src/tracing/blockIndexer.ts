import type { Block } from '@ethereumjs/block';
import type { VM } from '@ethereumjs/vm';
import type { EthereumChain } from '../chain/open.js';
import type { BatchOp } from '../db/database.js';
import { type BlockHistory, blockHistory, historyHeadOp, historyOps, readHistoryHead, readList } from './addressHistory.js';
import { createTraceIndexOps, type TraceIndexer } from './addressIndex.js';
import type { TxCallTree } from './callTree.js';
import { attachRecorder } from './recorder.js';

/**
 * The indexes written with each executed block, from one recording of its call trees: the
 * trace_filter address index (`addressIndex.ts`) and the Otterscan address history
 * (`addressHistory.ts`). The importer attaches it to its VM and adds `blockOps(block)` to the
 * block's canonical operations, so a block and its index entries commit together, at import and
 * while following alike. Create one per VM.
 */
export function createBlockIndexer(vm: VM, chain: EthereumChain): TraceIndexer {
  const recorder = attachRecorder(vm);
  const traceOps = createTraceIndexOps(chain.level);
  const historyIndex = createHistoryIndexOps(chain);
  return {
    async blockOps(block: Block): Promise<BatchOp[]> {
      const txs = recorder.take();
      if (txs.length !== block.transactions.length) {
        throw new Error(`block indexer: recorded ${txs.length} transactions for block ${block.header.number}, which has ${block.transactions.length}`);
      }
      return [...(await traceOps(block, txs)), ...(await historyIndex(block, txs))];
    },
  };
}

/**
 * The address-history operations of executed blocks: the entries of the block's height (replacing
 * whatever the height held), and the history head when the history is complete up to the parent.
 */
export function createHistoryIndexOps(chain: EthereumChain): (block: Block, txs: readonly TxCallTree[]) => Promise<BatchOp[]> {
  let head: bigint | undefined;
  return async (block, txs) => {
    const number = block.header.number;
    const ops = await historyBlockOps(chain, number, blockHistory(block, txs));
    head ??= await readHistoryHead(chain.level, chain.start?.number ?? 0n);
    if (head === number - 1n) {
      ops.push(historyHeadOp(number));
      head = number;
    }
    return ops;
  };
}

/** The operations that make `history` the entries of height `number`, removing what it held. */
export async function historyBlockOps(chain: EthereumChain, number: bigint, history: BlockHistory): Promise<BatchOp[]> {
  return historyOps(number, history, await readList(chain.level, number));
}
