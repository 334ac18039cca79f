import type { Block } from '@ethereumjs/block';
import type { StoredReceipt } from '../../chain/receipts.js';
import { bytesToData } from '../../codec/hex.js';
import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { formatReceipt } from './_shared/formatReceipt.js';

/**
 * `eth_getTransactionReceipt(hash)`: the receipt of a mined transaction, its logs numbered across
 * the block; `null` for an unknown hash.
 *
 * A transaction this node relayed (eth_sendRawTransaction) that it has not seen mined yet is asked
 * of the followed node: when that node has mined it in a block this node has not executed yet, the
 * answer waits — at most `follow.relayedReceiptWaitMs` — for this node to execute that block, and
 * is then this node's own receipt (executed and verified here, never the upstream's word); when the
 * followed node has no receipt yet, the next block this node executes is waited for (an automining
 * node answers the send before it mines); `null` when the wait runs out. A wallet that asks right
 * after sending (ethers' `wait()`, viem's `waitForTransactionReceipt`) gets the receipt as soon as
 * it would from the followed node, plus this node's execution of the block.
 */
export const getTransactionReceipt = defineMethod({
  name: 'eth_getTransactionReceipt',
  raises: HISTORY,
  params: [Hash],
  handler: async (ctx: EthContext, [hash]) => {
    const found = await localReceipt(ctx, hash);
    if (found !== undefined) return formatReceipt(found.block, found.receipts, found.index, ctx.renderedReceipts);
    if (!(await awaitRelayedBlock(ctx, hash))) return null;
    const later = await localReceipt(ctx, hash);
    return later === undefined ? null : formatReceipt(later.block, later.receipts, later.index, ctx.renderedReceipts);
  },
});

async function localReceipt(ctx: EthContext, hash: Uint8Array): Promise<{ block: Block; receipts: StoredReceipt[]; index: number } | undefined> {
  const store = ctx.chain.store;
  const at = await store.txLocation(hash);
  if (!at) return undefined;
  const [block, receipts] = await Promise.all([store.blockByHash(at.blockHash), store.receipts(at.blockHash)]);
  if (!block || !receipts || at.index >= block.transactions.length) return undefined;
  return { block, receipts, index: at.index };
}

/**
 * For a transaction this node relayed: whether this node's head then reached the block the
 * followed node mined it in, within the wait. When the followed node has not answered a receipt
 * yet (an automining node answers the send, then mines), the next block this node executes is
 * waited for instead, within the same bound. Any failure to ask is a plain "no" (`null`).
 */
async function awaitRelayedBlock(ctx: EthContext, hash: Uint8Array): Promise<boolean> {
  const relayed = ctx.relayed;
  const hex = bytesToData(hash);
  if (ctx.pool === undefined || relayed === undefined || relayed.receiptWaitMs === 0 || !relayed.transactions.has(hex)) return false;
  const head = (await ctx.chain.store.head())?.number ?? 0n;
  let number = head + 1n;
  try {
    const answer = await ctx.pool.forward('eth_getTransactionReceipt', [hex]);
    const blockNumber = 'result' in answer ? (answer.result as { blockNumber?: unknown } | null)?.blockNumber : undefined;
    if (typeof blockNumber === 'string' && /^0x[0-9a-f]+$/i.test(blockNumber)) number = BigInt(blockNumber);
  } catch {
    return false;
  }
  return untilHead(ctx, number, relayed.receiptWaitMs);
}

/** Resolves true once this node's head is at `number` or beyond, false after `ms`. */
async function untilHead(ctx: EthContext, number: bigint, ms: number): Promise<boolean> {
  const reached = async () => ((await ctx.chain.store.head())?.number ?? -1n) >= number;
  if (await reached()) return true;
  return new Promise<boolean>((resolve) => {
    let done = false;
    const finish = (value: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stop();
      resolve(value);
    };
    const timer = setTimeout(() => finish(false), ms);
    const stop = ctx.events.feed.listen(async () => {
      if (await reached()) finish(true);
    });
  });
}
