import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { type Address, createAddressFromPrivateKey, hexToBytes } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { type ConfigOverrides, testConfig } from '../../../../test/helpers/testConfig.js';
import type { EthContext } from '../../context.js';
import { gasPrice } from '../gasPrice.js';
import { maxPriorityFeePerGas } from '../maxPriorityFeePerGas.js';
import { createGasOracle } from './gasOracle.js';

// geth's gas price oracle (eth/gasprice/gasprice.go, default settings: 20 blocks, 3 cheapest tips
// a block, 60th percentile, tips under 2 wei ignored, at most 500 gwei, 0.001 gwei for a block with
// nothing to sample) on chains built here, each expected value worked out by hand in its comment.

const GWEI = 1_000_000_000n;
const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun });
const berlin = new Common({ chain: Mainnet, hardfork: Hardfork.Berlin });
const USER = hexToBytes(`0x${'45'.repeat(32)}`);
const MINER_KEY = hexToBytes(`0x${'46'.repeat(32)}`);
const MINER = createAddressFromPrivateKey(MINER_KEY);
const OTHER_MINER = createAddressFromPrivateKey(hexToBytes(`0x${'47'.repeat(32)}`));
const TO = `0x${'11'.repeat(20)}` as const;

let nonce = 0;
/** An EIP-1559 transfer paying exactly `tip` above a `baseFee` block (max fee = base fee + tip). */
const tipping = (tip: bigint, baseFee: bigint, key = USER) =>
  createFeeMarket1559Tx({ nonce: nonce++, maxPriorityFeePerGas: tip, maxFeePerGas: baseFee + tip, gasLimit: 21000, to: TO, chainId: 1 }, { common }).sign(key);

interface FakeBlock {
  header: { baseFeePerGas?: bigint; coinbase: Address };
  transactions: TypedTransaction[];
}

/** A context over blocks 1..n (index 0 = block 1), with its own oracle configured by `overrides`. */
function contextOver(blocks: FakeBlock[], overrides: ConfigOverrides = {}): EthContext {
  const head = { number: BigInt(blocks.length), hash: new Uint8Array(32) };
  const store = {
    head: async () => head,
    blockByNumber: async (n: bigint) => (n >= 1n && n <= BigInt(blocks.length) ? blocks[Number(n) - 1] : undefined),
    headerByHash: async () => blocks.at(-1)!.header,
    headerOfHead: async () => blocks.at(-1)!.header,
  };
  return { chain: { store }, gasOracle: createGasOracle(store as never, testConfig(overrides).gasOracle) } as unknown as EthContext;
}

const suggestTipCap = (ctx: EthContext) => ctx.gasOracle.suggestTipCap();

const block = (baseFee: bigint | undefined, txs: TypedTransaction[], coinbase = OTHER_MINER): FakeBlock => ({
  header: { baseFeePerGas: baseFee, coinbase },
  transactions: txs,
});

describe('gas price oracle (geth defaults)', () => {
  it('the 60th percentile of the three cheapest tips of the last 20 blocks', async () => {
    // Block i (1..20) carries tips i+40, i, i+20 and i+60 gwei: its three cheapest are i, i+20,
    // i+40. The 60 samples are 1..60 gwei; index floor(59 × 60 / 100) = 35 is 36 gwei.
    const blocks = Array.from({ length: 20 }, (_, k) => {
      const i = BigInt(k + 1);
      const base = 7n * GWEI;
      return block(base, [tipping((i + 40n) * GWEI, base), tipping(i * GWEI, base), tipping((i + 20n) * GWEI, base), tipping((i + 60n) * GWEI, base)]);
    });
    const ctx = contextOver(blocks);
    expect(await suggestTipCap(ctx)).toBe(36n * GWEI);
    expect(await maxPriorityFeePerGas.call(ctx, [])).toBe(`0x${(36n * GWEI).toString(16)}`);
    // eth_gasPrice adds the head's base fee: 36 + 7 gwei.
    expect(await gasPrice.call(ctx, [])).toBe(`0x${(43n * GWEI).toString(16)}`);
  });

  it('tips under 2 wei and transactions sent by the block miner are not sampled', async () => {
    // Each block: a 1-wei tip (ignored), a 90-gwei tip sent by the block's own miner (ignored) and
    // a 5-gwei tip: one sample of 5 gwei a block, so every sample is 5 gwei.
    const blocks = Array.from({ length: 20 }, () => block(GWEI, [tipping(1n, GWEI), tipping(90n * GWEI, GWEI, MINER_KEY), tipping(5n * GWEI, GWEI)], MINER));
    expect(await suggestTipCap(contextOver(blocks))).toBe(5n * GWEI);
  });

  it('a block giving one sample widens the search, up to 40 samples and blocks outstanding', async () => {
    // Blocks 11..30 give one sample each (1 gwei); blocks 1..10 give three (50 gwei). Each of the
    // first ten single-sample blocks fetches one older block (samples + 1 + outstanding stays
    // under 40), so blocks 10..1 are sampled too: 20 × 1 gwei + 30 × 50 gwei. Index
    // floor(49 × 60 / 100) = 29 is 50 gwei. Without the widening it would be 1 gwei.
    const blocks = [
      ...Array.from({ length: 10 }, () => block(GWEI, [tipping(50n * GWEI, GWEI), tipping(50n * GWEI, GWEI), tipping(50n * GWEI, GWEI)])),
      ...Array.from({ length: 20 }, () => block(GWEI, [tipping(GWEI, GWEI)])),
    ];
    expect(await suggestTipCap(contextOver(blocks))).toBe(50n * GWEI);
  });

  it('empty blocks count the default price (0.001 gwei) once each; the genesis is never sampled', async () => {
    const ctx = contextOver([block(GWEI, []), block(GWEI, []), block(GWEI, [])]);
    expect(testConfig().gasOracle.defaultPriceWei).toBe(1_000_000);
    expect(await suggestTipCap(ctx)).toBe(1_000_000n);
  });

  it('the suggestion is capped at 500 gwei', async () => {
    const blocks = Array.from({ length: 20 }, () => block(GWEI, [tipping(600n * GWEI, GWEI)]));
    expect(BigInt(testConfig().gasOracle.maxPriceWei)).toBe(500n * GWEI);
    expect(await suggestTipCap(contextOver(blocks))).toBe(500n * GWEI);
  });

  it('before London: the tip is the whole gas price, and eth_gasPrice adds no base fee', async () => {
    // Legacy transactions at 3 gwei in blocks without a base fee: every sample is 3 gwei.
    const legacy = () => createLegacyTx({ nonce: nonce++, gasPrice: 3n * GWEI, gasLimit: 21000, to: TO }, { common: berlin }).sign(USER);
    const ctx = contextOver(Array.from({ length: 20 }, () => block(undefined, [legacy(), legacy()])));
    expect(await suggestTipCap(ctx)).toBe(3n * GWEI);
    expect(await gasPrice.call(ctx, [])).toBe(`0x${(3n * GWEI).toString(16)}`);
  });

  it('the gasOracle settings: percentile, samples per block and the cap', async () => {
    // The first test's chain: block i carries tips i, i+20, i+40 and i+60 gwei.
    const blocks = Array.from({ length: 20 }, (_, k) => {
      const i = BigInt(k + 1);
      const base = 7n * GWEI;
      return block(base, [tipping((i + 40n) * GWEI, base), tipping(i * GWEI, base), tipping((i + 20n) * GWEI, base), tipping((i + 60n) * GWEI, base)]);
    });
    // The cheapest tip of each block only: samples 1..20 gwei; the 0th percentile is 1 gwei, the 100th 20.
    expect(await suggestTipCap(contextOver(blocks, { gasOracle: { samplesPerBlock: 1, percentile: 0 } }))).toBe(GWEI);
    expect(await suggestTipCap(contextOver(blocks, { gasOracle: { samplesPerBlock: 1, percentile: 100 } }))).toBe(20n * GWEI);
    // The last 5 blocks (16..20), all four tips: 16–20, 36–40, 56–60 and 76–80 gwei; index
    // floor(19 × 60 / 100) = 11 is 57 gwei.
    expect(await suggestTipCap(contextOver(blocks, { gasOracle: { blocks: 5, samplesPerBlock: 4 } }))).toBe(57n * GWEI);
    expect(await suggestTipCap(contextOver(blocks, { gasOracle: { maxPriceWei: 10 } }))).toBe(10n);
  });
});
