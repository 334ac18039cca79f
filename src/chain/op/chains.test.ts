import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createChainCommon } from '../genesis.js';
import { KNOWN_OP_CHAIN_IDS, knownOpChain } from './chains.js';
import { opRulesGenesis, rollupFromConfig, rollupFromGethGenesis } from './rollup.js';

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
      // The registry leaves Regolith out: every one of its chains has it from genesis (op-geth's
      // params/superchain.go sets RegolithTime to the genesis activation for all of them).
      expect(times.regolith_time).toBeUndefined();
      const fromRegistry = rollupFromConfig({ l2_chain_id: entry.l2_chain_id, regolith_time: 0, ...times, chain_op_config: entry.optimism as never });
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

  it('each one’s op-geth config puts Ethereum’s forks at its upgrades: the real blocks’ times read as their forks', async () => {
    const fixtures = ['op-mainnet-132795025', 'op-sepolia-26207960', 'unichain-10211000'];
    for (const file of fixtures) {
      const path = resolve(import.meta.dirname, `../../../fixtures/op-stack/${file}.json.br`);
      const json = JSON.parse(brotliDecompressSync(readFileSync(path)).toString('utf8')) as {
        fixture: { rollup_config: { l2_chain_id: number }; executing_payload: { timestamp: string | number } };
      };
      const rollup = knownOpChain(BigInt(json.fixture.rollup_config.l2_chain_id))!.rollup;
      const genesis = opRulesGenesis(rollup);
      expect(rollupFromGethGenesis(genesis), file).toEqual(rollup);
      const common = await createChainCommon(genesis);
      const time = BigInt(json.fixture.executing_payload.timestamp);
      // Holocene blocks: Ecotone's Cancun.
      expect(common.getHardforkBy({ blockNumber: 1n, timestamp: time }), file).toBe('cancun');
      expect(common.getHardforkBy({ blockNumber: 1n, timestamp: rollup.times.isthmus! }), file).toBe('prague');
      // Unichain started at Ecotone: its Canyon is its Ecotone.
      const canyon = rollup.times.canyon === rollup.times.ecotone ? 'cancun' : 'shanghai';
      expect(common.getHardforkBy({ blockNumber: 1n, timestamp: rollup.times.canyon! }), file).toBe(canyon);
    }
  });
});
