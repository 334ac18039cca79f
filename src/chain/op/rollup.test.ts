import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { hexToBytes } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { baseFeeParams, decodeHoloceneExtraData, decodeJovianExtraData, holoceneExtraData, nextBaseFee, opNextBaseFee } from './baseFee.js';
import { isActive, rollupFromConfig, rollupFromGethGenesis, upgradeAt } from './rollup.js';

/** OP Sepolia's rollup config as kona's fixtures carry it (times in seconds; no regolith_time: Regolith from genesis). */
const OP_SEPOLIA = rollupFromConfig({
  l2_chain_id: 11155420,
  canyon_time: 1699981200,
  delta_time: 1703203200,
  ecotone_time: 1708534800,
  fjord_time: 1716998400,
  granite_time: 1723478400,
  holocene_time: 1732633200,
  isthmus_time: 1744905600,
  chain_op_config: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
});

describe('an OP-stack chain’s upgrades and EIP-1559 parameters', () => {
  it('an upgrade is active from its time, or once a later one is (Regolith has no time in OP Sepolia’s config)', () => {
    expect(upgradeAt(OP_SEPOLIA, 0n)).toBe('bedrock');
    expect(isActive(OP_SEPOLIA, 'regolith', 1699981199n)).toBe(false);
    expect(isActive(OP_SEPOLIA, 'regolith', 1699981200n)).toBe(true);
    expect(upgradeAt(OP_SEPOLIA, 1744218460n)).toBe('holocene');
    expect(upgradeAt(OP_SEPOLIA, 1744905600n)).toBe('isthmus');
  });

  it('Holocene extra data: the payload’s parameters after a version byte; zeros take the config’s Canyon values', () => {
    expect(holoceneExtraData(OP_SEPOLIA, hexToBytes('0x000000fa00000006'))).toEqual(hexToBytes('0x00000000fa00000006'));
    expect(holoceneExtraData(OP_SEPOLIA, new Uint8Array(8))).toEqual(hexToBytes('0x00000000fa00000006'));
    expect(decodeHoloceneExtraData(hexToBytes('0x00000000fa00000006'))).toEqual({ denominator: 250n, elasticity: 6n });
    expect(() => decodeHoloceneExtraData(hexToBytes('0x01000000fa00000006'))).toThrow(/not version 0/);
    expect(() => decodeHoloceneExtraData(hexToBytes('0x000000000000000006'))).toThrow(/denominator 0/);
    expect(() => holoceneExtraData(OP_SEPOLIA, new Uint8Array(7))).toThrow(/7 bytes/);
  });

  it('the base fee: from the parent’s extra data once the parent is Holocene, else the config’s (Canyon’s denominator from Canyon)', () => {
    const holoceneParent = { timestamp: 1744218458n, extraData: hexToBytes('0x00000000320000000a') };
    expect(baseFeeParams(OP_SEPOLIA, holoceneParent, 1744218460n)).toEqual({ denominator: 50n, elasticity: 10n });
    expect(baseFeeParams(OP_SEPOLIA, { timestamp: 1703203200n, extraData: new Uint8Array() }, 1703203202n)).toEqual({ denominator: 250n, elasticity: 6n });
    expect(baseFeeParams(OP_SEPOLIA, { timestamp: 1699981000n, extraData: new Uint8Array() }, 1699981002n)).toEqual({ denominator: 50n, elasticity: 6n });
    // OP Sepolia block 26,207,959 (the parent of the first fixture): 2,136,422 of 60,000,000 gas at 270 wei; the target is
    // 10,000,000, and 270 × 7,863,578 / 10,000,000 / 250 rounds to 0: block 26,207,960's base fee is 270 again.
    const params = { denominator: 250n, elasticity: 6n };
    expect(nextBaseFee({ gasLimit: 60_000_000n, gasUsed: 2_136_422n, baseFee: 270n }, params)).toBe(270n);
    // Above the target by half: +1/500; exactly at it: unchanged; a tiny excess still adds 1 wei.
    expect(nextBaseFee({ gasLimit: 60_000_000n, gasUsed: 15_000_000n, baseFee: 1_000_000n }, params)).toBe(1_002_000n);
    expect(nextBaseFee({ gasLimit: 60_000_000n, gasUsed: 10_000_000n, baseFee: 1_000_000n }, params)).toBe(1_000_000n);
    expect(nextBaseFee({ gasLimit: 60_000_000n, gasUsed: 10_000_001n, baseFee: 1_000_000n }, params)).toBe(1_000_001n);
  });

  it('Jovian: version 1 extra data with a minimum base fee; the parent’s DA footprint counts when it is more than its gas used', () => {
    // op-reth's own encoding test (base/base 98a8db8d, crates/alloy/consensus/src/extra/jovian.rs):
    // params 0x0000000800000008 and a minimum of 257 give 01 00000008 00000008 0000000000000101.
    expect(decodeJovianExtraData(Uint8Array.from([1, 0, 0, 0, 8, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 1, 1]))).toEqual({
      denominator: 8n,
      elasticity: 8n,
      minBaseFee: 257n,
    });
    expect(() => decodeJovianExtraData(hexToBytes('0x00000000fa00000006'))).toThrow(/not version 1/);
    const rollup = { ...OP_SEPOLIA, times: { ...OP_SEPOLIA.times, jovian: 2_000_000_000n } };
    const extra = (min: bigint) => hexToBytes(`0x01000000fa00000006${min.toString(16).padStart(16, '0')}`);
    const parent = { timestamp: 2_000_000_000n, extraData: extra(0n), gasLimit: 60_000_000n, gasUsed: 5_000_000n, baseFeePerGas: 1_000_000n };
    // Half below the target of 10,000,000: −1/500 (by hand: 1,000,000 × 5,000,000 / 10,000,000 / 250 = 2,000).
    expect(opNextBaseFee(rollup, parent, 2_000_000_002n)).toBe(998_000n);
    // A DA footprint of 15,000,000 counts instead: half above the target, +2,000.
    expect(opNextBaseFee(rollup, { ...parent, blobGasUsed: 15_000_000n }, 2_000_000_002n)).toBe(1_002_000n);
    // The minimum holds the fee up; below the fee it changes nothing.
    expect(opNextBaseFee(rollup, { ...parent, extraData: extra(999_999n) }, 2_000_000_002n)).toBe(999_999n);
    expect(opNextBaseFee(rollup, { ...parent, extraData: extra(5n) }, 2_000_000_002n)).toBe(998_000n);
    // A Holocene parent (the first Jovian block's): version 0, and its blobGasUsed does not count.
    const holocene = { ...parent, timestamp: 1_999_999_998n, extraData: hexToBytes('0x00000000fa00000006'), blobGasUsed: 15_000_000n };
    expect(opNextBaseFee(rollup, holocene, 2_000_000_000n)).toBe(998_000n);
  });
});

describe('rules from an op-geth genesis file', () => {
  it('an upgrade the genesis schedules that tracenode does not know is kept, with its time (blocks from it are refused)', () => {
    const genesis = {
      config: {
        chainId: 901,
        cancunTime: 0,
        isthmusTime: 0,
        jovianTime: 10,
        interopTime: 500,
        bpo1Time: 100,
        optimism: { eip1559Elasticity: 6, eip1559Denominator: 50 },
      },
    };
    expect(rollupFromGethGenesis(genesis).unknownUpgrade).toEqual({ name: 'interop', time: 500n });
    expect(rollupFromGethGenesis({ config: { ...genesis.config, interopTime: null } }).unknownUpgrade).toBeUndefined();
  });

  it('the config of a real OP-stack genesis (base/base’s builder test genesis: every upgrade at 0, chain 901)', () => {
    const genesis = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../fixtures/op-stack/base-genesis-config.json'), 'utf8'));
    const rollup = rollupFromGethGenesis(genesis);
    expect(rollup.chainId).toBe(901n);
    expect(rollup.times).toEqual({ regolith: 0n, canyon: 0n, ecotone: 0n, fjord: 0n, granite: 0n, holocene: 0n, isthmus: 0n, jovian: 0n });
    expect(rollup.eip1559).toEqual({ elasticity: 6n, denominator: 50n, denominatorCanyon: 250n });
    expect(upgradeAt(rollup, 1n)).toBe('jovian');
  });

  it('a genesis without Canyon’s denominator keeps the first one; error: no optimism section, a time that is not an integer', () => {
    const config = { chainId: 7, regolithTime: 0, canyonTime: 100, optimism: { eip1559Elasticity: 10, eip1559Denominator: 50 } };
    const rollup = rollupFromGethGenesis({ config });
    expect([rollup.times, rollup.eip1559]).toEqual([
      { regolith: 0n, canyon: 100n },
      { elasticity: 10n, denominator: 50n, denominatorCanyon: 50n },
    ]);
    expect(() => rollupFromGethGenesis({ config: { chainId: 1 } })).toThrow(/config.optimism/);
    expect(() => rollupFromGethGenesis({ config: { ...config, ecotoneTime: '0x10' } })).toThrow(/config.ecotoneTime is not a non-negative integer/);
  });
});
