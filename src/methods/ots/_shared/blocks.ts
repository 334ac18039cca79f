import type { Block } from '@ethereumjs/block';
import type { StoredReceipt } from '../../../chain/receipts.js';
import { bigIntToQuantity } from '../../../codec/hex.js';
import { blockRewards } from '../../../tracing/rewards.js';
import type { EthContext } from '../../context.js';
import { formatBlock, type RpcBlock } from '../../eth/_shared/formatBlock.js';
import { formatBlockReceipts, type RpcReceipt } from '../../eth/_shared/formatReceipt.js';
import { effectiveGasPrice, type RpcTransaction } from '../../eth/_shared/formatTransaction.js';

/** A block as Otterscan's block methods return it: no transaction list, their count, no bloom. */
export type OtsBlock = Omit<RpcBlock, 'logsBloom' | 'transactions'> & { logsBloom: null; transactionCount: number };

/** ots_getBlockDetails's answer (erigon `getBlockDetailsImpl`). */
export interface OtsBlockDetails {
  block: OtsBlock;
  issuance: { blockReward: string; uncleReward: string; issuance: string };
  totalFees: string;
}

/** The stored receipts of a block (a canonical or stored block has them). */
async function receiptsOf(ctx: EthContext, block: Block) {
  const receipts = await ctx.chain.store.receipts(block.hash());
  if (!receipts) throw new Error(`database corrupt: receipts of block ${block.header.number} missing`);
  return receipts;
}

/**
 * erigon's `delegateGetBlockByNumber`: the block as eth_getBlockByNumber renders it, with
 * `transactionCount` added and `logsBloom` null; without its transactions unless `fullTx`
 * (rendered with the block's `receipts`, which an OP-stack deposit's rendering reads).
 */
function otsBlock(block: Block, fullTx: boolean, receipts?: readonly StoredReceipt[]): OtsBlock & { transactions?: RpcTransaction[] } {
  const { transactions, logsBloom: _bloom, ...rest } = formatBlock(block, fullTx, undefined, receipts);
  const out: OtsBlock & { transactions?: RpcTransaction[] } = { ...rest, logsBloom: null, transactionCount: block.transactions.length };
  if (fullTx) out.transactions = transactions as RpcTransaction[];
  return out;
}

/**
 * ots_getBlockDetails / ots_getBlockDetailsByHash: the block without its transactions, what the
 * block issued (its author's and its uncles' mining rewards; 0 after the merge), and the fees its
 * senders paid (gas used × effective gas price, base fee included, as erigon's
 * `delegateBlockFees`).
 */
export async function blockDetails(ctx: EthContext, block: Block): Promise<OtsBlockDetails> {
  const receipts = await receiptsOf(ctx, block);
  let totalFees = 0n;
  block.transactions.forEach((tx, i) => {
    totalFees += receipts[i].gasUsed * effectiveGasPrice(tx, block.header.baseFeePerGas);
  });
  let blockReward = 0n;
  let uncleReward = 0n;
  for (const reward of blockRewards(block)) {
    if (reward.kind === 'block') blockReward += reward.value;
    else uncleReward += reward.value;
  }
  return {
    block: otsBlock(block, false),
    issuance: { blockReward: bigIntToQuantity(blockReward), uncleReward: bigIntToQuantity(uncleReward), issuance: bigIntToQuantity(blockReward + uncleReward) },
    totalFees: bigIntToQuantity(totalFees),
  };
}

/** ots_getBlockTransactions's answer: the block with one page of transactions, and their receipts. */
export interface OtsBlockTransactions {
  fullblock: OtsBlock & { transactions?: RpcTransaction[] };
  receipts: Array<Omit<RpcReceipt, 'logs' | 'logsBloom'> & { logs: null; logsBloom: null }>;
}

/**
 * One page of a block's transactions with their receipts (erigon `GetBlockTransactions`). Pages
 * count from the block's end: page 0 holds its last `pageSize` transactions, page 1 the ones
 * before them (Otterscan lists a block newest first). Inputs are cut to their 4-byte selector;
 * receipts have `logs` and `logsBloom` null; `transactionCount` is the whole block's.
 */
export async function blockTransactions(ctx: EthContext, block: Block, pageNumber: number, pageSize: number): Promise<OtsBlockTransactions> {
  const stored = await receiptsOf(ctx, block);
  const fullblock = otsBlock(block, true, stored);
  const count = block.transactions.length;
  const end = Math.max(0, count - pageNumber * pageSize);
  const start = Math.max(0, end - pageSize);
  fullblock.transactions = (fullblock.transactions ?? [])
    .slice(start, end)
    .map((tx) => ({ ...tx, input: tx.input.length > 10 ? tx.input.slice(0, 10) : tx.input }));
  const receipts = formatBlockReceipts(block, stored)
    .slice(start, end)
    .map((r) => ({ ...r, logs: null, logsBloom: null }));
  return { fullblock, receipts };
}
