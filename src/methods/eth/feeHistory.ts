import type { Block, BlockHeader } from '@ethereumjs/block';
import { BlockNumberOrTag } from '../../codec/blockId.js';
import { bigIntToQuantity } from '../../codec/hex.js';
import { ServerError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { effectiveGasTip } from './_shared/formatTransaction.js';
import { headOf } from './_shared/head.js';
import { FloatList, HexOrDecimal64 } from './_shared/params.js';
import { blockNumberOf } from './_shared/resolveBlock.js';

/** Most reward percentiles per request (geth `maxQueryLimit`). */
export const FEE_HISTORY_MAX_PERCENTILES = 100;
/** Base fee of the first London block (EIP-1559 `INITIAL_BASE_FEE`). */
const INITIAL_BASE_FEE = 1_000_000_000n;

/** `eth_feeHistory` answer (geth `feeHistoryResult`: empty lists are left out, `gasUsedRatio` is always present). */
export interface RpcFeeHistory {
  oldestBlock: string;
  reward?: string[][];
  baseFeePerGas?: string[];
  gasUsedRatio: number[] | null;
  baseFeePerBlobGas?: string[];
  blobGasUsedRatio?: number[];
}

/** Go's `%f`: six decimals. */
function goFloat(p: number): string {
  return p.toFixed(6);
}

function invalidPercentile(detail: string): ServerError {
  return new ServerError(`invalid reward percentile: ${detail}`);
}

/**
 * The base fee of the block after `header` (geth `eip1559.CalcBaseFee`, called only when that
 * block is London): the initial base fee after the last pre-London block.
 */
function nextBaseFee(ctx: EthContext, header: BlockHeader): bigint {
  const london = ctx.chain.common.hardforkBlock('london');
  if (london === null || header.number + 1n < london) return 0n;
  if (header.baseFeePerGas === undefined) return INITIAL_BASE_FEE;
  return header.calcNextBaseFee();
}

/**
 * Rewards at the requested percentiles of gas used, smallest tip first (geth `processBlock`):
 * for each percentile, the tip of the transaction at which the cumulative gas reaches it.
 */
async function blockRewards(ctx: EthContext, block: Block, percentiles: readonly number[]): Promise<bigint[]> {
  if (block.transactions.length === 0) return percentiles.map(() => 0n);
  const receipts = (await ctx.chain.store.receipts(block.hash())) ?? [];
  const baseFee = block.header.baseFeePerGas;
  const sorted = block.transactions
    .map((tx, i) => ({ reward: effectiveGasTip(tx, baseFee), gasUsed: receipts[i]?.gasUsed ?? 0n }))
    .sort((a, b) => (a.reward < b.reward ? -1 : a.reward > b.reward ? 1 : 0));
  const gasUsed = Number(block.header.gasUsed);
  let txIndex = 0;
  let sumGasUsed = sorted[0].gasUsed;
  return percentiles.map((p) => {
    const threshold = BigInt(Math.trunc((gasUsed * p) / 100));
    while (sumGasUsed < threshold && txIndex < sorted.length - 1) {
      txIndex++;
      sumGasUsed += sorted[txIndex].gasUsed;
    }
    return sorted[txIndex].reward;
  });
}

/**
 * `eth_feeHistory(blockCount, newestBlock, rewardPercentiles)`: base fees, gas use and tips of a
 * range of blocks ending at `newestBlock`, with one extra base fee (and blob base fee) for the block
 * after it. geth `eth/gasprice/feehistory.go`, including its errors and its silent clamps: the count
 * is cut to `rpc.feeHistoryMaxBlocks` (1024, geth's) and to the blocks that exist. geth requires all three arguments; null percentiles
 * mean none (then `reward` is left out). Blob figures are 0 before Cancun.
 */
export const feeHistory = defineMethod({
  name: 'eth_feeHistory',
  raises: HISTORY,
  params: [HexOrDecimal64, BlockNumberOrTag, FloatList],
  handler: async (ctx: EthContext, [count, newest, percentiles], req): Promise<RpcFeeHistory> => {
    if (count < 1n) return { oldestBlock: '0x0', gasUsedRatio: null };
    if (percentiles.length > FEE_HISTORY_MAX_PERCENTILES) throw invalidPercentile(`over the query limit ${FEE_HISTORY_MAX_PERCENTILES}`);
    // `rpc.feeHistoryMaxBlocks`: longer requests are silently shortened (geth `MaxHeaderHistory`/`MaxBlockHistory`).
    const maxBlocks = ctx.limits.feeHistoryMaxBlocks;
    let blocks = count > maxBlocks ? maxBlocks : count;
    for (let i = 0; i < percentiles.length; i++) {
      const p = percentiles[i];
      if (p < 0 || p > 100) throw invalidPercentile(goFloat(p));
      if (i > 0 && p <= percentiles[i - 1]) throw invalidPercentile(`#${i - 1}:${goFloat(percentiles[i - 1])} >= #${i}:${goFloat(p)}`);
    }
    const head = (await headOf(ctx, req))?.number ?? 0n;
    if (newest.kind === 'number' && newest.number > head) {
      throw new ServerError(`request beyond head block: requested ${newest.number}, head ${head}`);
    }
    // BlockNumberOrTag never yields a hash.
    const last = await blockNumberOf(ctx, newest as Exclude<typeof newest, { kind: 'hash' }>, req);
    // An archive from block N has no block before N to report.
    const first = ctx.chain.start?.number ?? 0n;
    if (last + 1n - first < blocks) blocks = last + 1n - first;
    const oldest = last + 1n - blocks;

    const reward: string[][] = [];
    const baseFeePerGas: string[] = [];
    const gasUsedRatio: number[] = [];
    const baseFeePerBlobGas: string[] = [];
    const blobGasUsedRatio: number[] = [];
    let nextFee = '0x0';
    let nextBlobFee = '0x0';
    for (let n = oldest; n <= last; n++) {
      const block = percentiles.length > 0 ? await ctx.chain.store.blockByNumber(n) : undefined;
      const header = block?.header ?? (await ctx.chain.store.headerByNumber(n));
      if (!header) break;
      baseFeePerGas.push(bigIntToQuantity(header.baseFeePerGas ?? 0n));
      gasUsedRatio.push(Number(header.gasUsed) / Number(header.gasLimit));
      nextFee = bigIntToQuantity(nextBaseFee(ctx, header));
      if (header.excessBlobGas !== undefined) {
        baseFeePerBlobGas.push(bigIntToQuantity(header.getBlobGasPrice()));
        // geth prices the next block's excess blob gas with this block's fork parameters.
        nextBlobFee = bigIntToQuantity(header.calcNextBlobGasPrice(header.common));
        const maxBlobGas = header.common.getBlobGasSchedule().maxBlobGasPerBlock;
        blobGasUsedRatio.push(maxBlobGas > 0n ? Number(header.blobGasUsed ?? 0n) / Number(maxBlobGas) : 0);
      } else {
        baseFeePerBlobGas.push('0x0');
        nextBlobFee = '0x0';
        blobGasUsedRatio.push(0);
      }
      if (block) reward.push((await blockRewards(ctx, block, percentiles)).map(bigIntToQuantity));
    }
    if (gasUsedRatio.length === 0) return { oldestBlock: '0x0', gasUsedRatio: null };
    baseFeePerGas.push(nextFee);
    baseFeePerBlobGas.push(nextBlobFee);
    const out: RpcFeeHistory = { oldestBlock: bigIntToQuantity(oldest), gasUsedRatio };
    if (reward.length > 0) out.reward = reward;
    out.baseFeePerGas = baseFeePerGas;
    out.baseFeePerBlobGas = baseFeePerBlobGas;
    out.blobGasUsedRatio = blobGasUsedRatio;
    return out;
  },
});
