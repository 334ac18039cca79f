import type { Block } from '@ethereumjs/block';
import { Hardfork } from '@ethereumjs/common';

const ETHER = 10n ** 18n;

/** One block or uncle reward, as Parity's `reward` trace reports it. */
export interface Reward {
  kind: 'block' | 'uncle';
  /** Who receives it: the block's coinbase, or the uncle's. */
  author: Uint8Array;
  /** In wei. */
  value: bigint;
}

/**
 * The mining rewards of a block, in the order OpenEthereum emits their traces: the author's reward
 * first (base reward plus base/32 per included uncle, the "nephew" bonus, in one trace), then one
 * reward per uncle in header order, worth (uncleNumber + 8 − blockNumber) · base / 8. Only
 * proof-of-work blocks pay them (none after the merge, none for Clique); the base reward is the
 * one of the including block's fork: 5 ETH, 3 ETH from Byzantium (EIP-649), 2 ETH from
 * Constantinople (EIP-1234).
 *
 * Same values as @ethereumjs/vm `runBlock` credits (its `minerReward` parameter lives in the VM's
 * parameter set, not the block's Common, hence the table here) and OpenEthereum `ethash.rs`
 * `on_close_block`.
 * See docs/methods.md#rewards.
 */
export function blockRewards(block: Block): Reward[] {
  const common = block.common;
  if (common.consensusType() !== 'pow') return [];
  const base = common.gteHardfork(Hardfork.Constantinople) ? 2n * ETHER : common.gteHardfork(Hardfork.Byzantium) ? 3n * ETHER : 5n * ETHER;
  const number = block.header.number;
  const uncles = block.uncleHeaders;
  const rewards: Reward[] = [{ kind: 'block', author: block.header.coinbase.bytes, value: base + (base / 32n) * BigInt(uncles.length) }];
  for (const uncle of uncles) {
    const factor = uncle.number + 8n - number;
    rewards.push({ kind: 'uncle', author: uncle.coinbase.bytes, value: factor > 0n ? (factor * base) / 8n : 0n });
  }
  return rewards;
}
