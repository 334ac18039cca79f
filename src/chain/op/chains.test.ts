import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { KNOWN_OP_CHAIN_IDS, knownOpChain } from './chains.js';
import { rollupFromConfig } from './rollup.js';

/** The registry's entries of the known chains, copied unchanged (fixtures/op-stack/README.md). */
const REGISTRY = JSON.parse(
  gunzipSync(readFileSync(resolve(import.meta.dirname, '../../../fixtures/op-stack/superchain-chains.json.gz'))).toString('utf8'),
) as {
  chains: Array<{ Name: string; l2_chain_id: number; hardfork_configuration: Record<string, number>; optimism: Record<string, number> }>;
};

describe('OP-stack chains known by their chain id', () => {
  it('each one’s rules are the Superchain Registry’s: upgrade times and EIP-1559 parameters', () => {
    expect(REGISTRY.chains.map((c) => BigInt(c.l2_chain_id)).sort()).toEqual([...KNOWN_OP_CHAIN_IDS].sort());
    for (const entry of REGISTRY.chains) {
      const { pectra_blob_schedule_time: _l1Rule, ...times } = entry.hardfork_configuration;
      const fromRegistry = rollupFromConfig({ l2_chain_id: entry.l2_chain_id, ...times, chain_op_config: entry.optimism as never });
      const known = knownOpChain(BigInt(entry.l2_chain_id));
      expect(known?.rollup, entry.Name).toEqual(fromRegistry);
      expect(entry.Name.startsWith(known!.name)).toBe(true);
    }
    expect(knownOpChain(31337n)).toBeUndefined();
  });

  it('and those of the real blocks’ rollup configs (kona’s executor fixtures): OP Mainnet, OP Sepolia and Unichain, up to their time', () => {
    // Each fixture's config schedules the upgrades known when it was written (to Holocene or Isthmus).
    const fixtures = {
      'op-mainnet-132795025': 10n,
      'op-sepolia-26207960': 11155420n,
      'unichain-10211000': 130n,
    } as const;
    for (const [file, chainId] of Object.entries(fixtures)) {
      const path = resolve(import.meta.dirname, `../../../fixtures/op-stack/${file}.json.br`);
      const json = JSON.parse(brotliDecompressSync(readFileSync(path)).toString('utf8')) as {
        fixture: { rollup_config: Record<string, unknown> & { l2_chain_id: number } };
      };
      const theirs = rollupFromConfig(json.fixture.rollup_config);
      const ours = knownOpChain(chainId)!.rollup;
      for (const [upgrade, at] of Object.entries(theirs.times)) expect(ours.times[upgrade as keyof typeof ours.times], `${file} ${upgrade}`).toBe(at);
      expect(ours.eip1559).toEqual(theirs.eip1559);
      expect(ours.chainId).toBe(theirs.chainId);
    }
  });
});
