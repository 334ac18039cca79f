import { equalsBytes } from '@ethereumjs/util';
import { bytesToData } from '../../../codec/hex.js';
import type { EthContext } from '../../context.js';
import { effectiveGasTip, senderOf } from './formatTransaction.js';

// geth's default gas price oracle (`eth/gasprice/gasprice.go`, `ethconfig.FullNodeGPO`), used by
// `eth_gasPrice` and `eth_maxPriorityFeePerGas`: sample the cheapest tips of recent blocks and
// take a percentile.

/** Blocks sampled (geth `--gpo.blocks`). */
export const GPO_BLOCKS = 20;
/** Percentile of the samples suggested (geth `--gpo.percentile`). */
export const GPO_PERCENTILE = 60;
/** Cheapest tips taken per block (geth `sampleNumber`). */
export const GPO_SAMPLES_PER_BLOCK = 3;
/** Tips below this are ignored as spam (geth `DefaultIgnorePrice`, 2 wei). */
export const GPO_IGNORE_PRICE = 2n;
/** Suggestions are capped here (geth `DefaultMaxPrice`, 500 gwei). */
export const GPO_MAX_PRICE = 500_000_000_000n;
/**
 * Price used for a block with nothing to sample, and before any sample: geth seeds the oracle with
 * the miner's minimum tip, 0.001 gwei by default since v1.15.
 */
export const GPO_DEFAULT_PRICE = 1_000_000n;

/** The lowest `limit` tips of a block (at least `GPO_IGNORE_PRICE`, not sent by the block's miner). */
async function blockTips(ctx: EthContext, number: bigint, limit: number): Promise<bigint[]> {
  const block = await ctx.chain.store.blockByNumber(number);
  if (!block) return [];
  const baseFee = block.header.baseFeePerGas;
  const sorted = block.transactions.map((tx) => ({ tx, tip: effectiveGasTip(tx, baseFee) })).sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
  const tips: bigint[] = [];
  for (const { tx, tip } of sorted) {
    if (tip < GPO_IGNORE_PRICE) continue;
    if (equalsBytes(senderOf(tx), block.header.coinbase.bytes)) continue;
    tips.push(tip);
    if (tips.length >= limit) break;
  }
  return tips;
}

// The chain is final and the answer depends only on the head: one cached value per head hash.
let cached: { head: string; tip: bigint } | undefined;

/**
 * The suggested priority fee at the head, as geth's oracle computes it: up to three cheapest tips
 * from each of the last 20 blocks (genesis excluded), a block with none counting the default
 * price once and widening the search (to at most 40 blocks); then the 60th percentile, capped
 * at 500 gwei.
 */
export async function suggestTipCap(ctx: EthContext): Promise<bigint> {
  const head = await ctx.chain.store.head();
  if (!head) return GPO_DEFAULT_PRICE;
  const key = bytesToData(head.hash);
  if (cached?.head === key) return cached.tip;

  const samples: bigint[] = [];
  let number = head.number;
  const queue: bigint[] = [];
  while (queue.length < GPO_BLOCKS && number > 0n) queue.push(number--);
  while (queue.length > 0) {
    const n = queue.shift() as bigint;
    let values = await blockTips(ctx, n, GPO_SAMPLES_PER_BLOCK);
    if (values.length === 0) values = [GPO_DEFAULT_PRICE];
    // geth fetches one more block for each block that gave a single value, while the samples
    // plus the blocks still outstanding stay under twice the sample size.
    if (values.length === 1 && samples.length + 1 + queue.length < GPO_BLOCKS * 2 && number > 0n) {
      queue.push(number--);
    }
    samples.push(...values);
  }
  let tip = GPO_DEFAULT_PRICE;
  if (samples.length > 0) {
    samples.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    tip = samples[Math.floor(((samples.length - 1) * GPO_PERCENTILE) / 100)];
  }
  if (tip > GPO_MAX_PRICE) tip = GPO_MAX_PRICE;
  cached = { head: key, tip };
  return tip;
}
