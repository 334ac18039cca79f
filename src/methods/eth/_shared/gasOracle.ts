import { equalsBytes } from '@ethereumjs/util';
import type { ChainStore, Head } from '../../../chain/store.js';
import { bytesToData } from '../../../codec/hex.js';
import type { Config } from '../../../config/settings.js';
import { effectiveGasTip, senderOf } from './formatTransaction.js';

// geth's default gas price oracle (`eth/gasprice/gasprice.go`, `ethconfig.FullNodeGPO`), used by
// `eth_gasPrice` and `eth_maxPriorityFeePerGas`: sample the cheapest tips of recent blocks and
// take a percentile. Its parameters are the `gasOracle` settings (geth's `--gpo.*` flags and
// defaults; reasons in `config/settings.ts`).

/** The oracle of one chain. */
export interface GasOracle {
  /**
   * The suggested priority fee at the head, as geth's oracle computes it: up to `samplesPerBlock`
   * cheapest tips from each of the last `blocks` blocks (genesis excluded), a block with none
   * counting the default price once and widening the search (to at most twice as many blocks);
   * then the `percentile`-th percentile, capped at `maxPriceWei`.
   */
  suggestTipCap(head?: Head): Promise<bigint>;
}

/** What the oracle reads of the chain store. */
type OracleStore = Pick<ChainStore, 'head' | 'blockByNumber'>;

/** The gas price oracle over a chain store, with the `gasOracle` settings read once. */
export function createGasOracle(store: OracleStore, settings: Config['gasOracle']): GasOracle {
  const blocks = settings.blocks;
  const percentile = settings.percentile;
  const samplesPerBlock = settings.samplesPerBlock;
  const ignorePrice = BigInt(settings.ignorePriceWei);
  const maxPrice = BigInt(settings.maxPriceWei);
  const defaultPrice = BigInt(settings.defaultPriceWei);

  /** The lowest `limit` tips of a block (at least the ignore price, not sent by the block's miner). */
  const blockTips = async (number: bigint, limit: number): Promise<bigint[]> => {
    const block = await store.blockByNumber(number);
    if (!block) return [];
    const baseFee = block.header.baseFeePerGas;
    const sorted = block.transactions.map((tx) => ({ tx, tip: effectiveGasTip(tx, baseFee) })).sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
    const tips: bigint[] = [];
    for (const { tx, tip } of sorted) {
      if (tip < ignorePrice) continue;
      if (equalsBytes(senderOf(tx), block.header.coinbase.bytes)) continue;
      tips.push(tip);
      if (tips.length >= limit) break;
    }
    return tips;
  };

  // The chain is final and the answer depends only on the head: one cached value per head hash.
  let cached: { head: string; tip: bigint } | undefined;

  return {
    async suggestTipCap(at?: Head): Promise<bigint> {
      const head = at ?? (await store.head());
      if (!head) return defaultPrice;
      const key = bytesToData(head.hash);
      if (cached?.head === key) return cached.tip;

      const samples: bigint[] = [];
      let number = head.number;
      const queue: bigint[] = [];
      while (queue.length < blocks && number > 0n) queue.push(number--);
      while (queue.length > 0) {
        const n = queue.shift() as bigint;
        let values = await blockTips(n, samplesPerBlock);
        if (values.length === 0) values = [defaultPrice];
        // geth fetches one more block for each block that gave a single value, while the samples
        // plus the blocks still outstanding stay under twice the sample size.
        if (values.length === 1 && samples.length + 1 + queue.length < blocks * 2 && number > 0n) {
          queue.push(number--);
        }
        samples.push(...values);
      }
      let tip = defaultPrice;
      if (samples.length > 0) {
        samples.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        tip = samples[Math.floor(((samples.length - 1) * percentile) / 100)];
      }
      if (tip > maxPrice) tip = maxPrice;
      cached = { head: key, tip };
      return tip;
    },
  };
}
