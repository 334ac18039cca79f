import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createEVM } from '@ethereumjs/evm';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { opCommon, rollupFromConfig } from '../../chain/op/rollup.js';
import { createBlockVM } from '../blockRun.js';
import {
  BN254_PAIRING_MAX_INPUT_GRANITE,
  BN254_PAIRING_MAX_INPUT_JOVIAN,
  ISTHMUS_BLS_BOUNDS,
  JOVIAN_BLS_BOUNDS,
  opPrecompiles,
  P256VERIFY_GAS,
  p256Verify,
} from './precompiles.js';

/** op-geth's P256VERIFY vectors (fixtures/op-stack/README.md): Wycheproof's secp256r1 cases and more. */
const VECTORS = JSON.parse(
  gunzipSync(readFileSync(resolve(import.meta.dirname, '../../../fixtures/op-stack/p256-verify-vectors.json.gz'))).toString('utf8'),
) as Array<{
  Input: string;
  Expected: string;
  Gas: number;
  Name: string;
}>;

describe('Fjord’s P256VERIFY (RIP-7212)', () => {
  it(`answers each of op-geth’s ${VECTORS.length} vectors as op-geth does, at op-geth’s gas`, () => {
    const wrong = VECTORS.filter((v) => bytesToHex(p256Verify(hexToBytes(`0x${v.Input}`))) !== `0x${v.Expected}`).map((v) => v.Name);
    expect(wrong).toEqual([]);
    expect(new Set(VECTORS.map((v) => BigInt(v.Gas)))).toEqual(new Set([P256VERIFY_GAS]));
    // Both answers occur: valid signatures and refused ones.
    expect(VECTORS.filter((v) => v.Expected === '').length).toBeGreaterThan(100);
    expect(VECTORS.filter((v) => v.Expected !== '').length).toBeGreaterThan(100);
  });

  it('a wrong length or a key off the curve gives no output', () => {
    const valid = VECTORS.find((v) => v.Expected !== '')!;
    const input = hexToBytes(`0x${valid.Input}`);
    expect(p256Verify(input.subarray(0, 159))).toEqual(new Uint8Array());
    const offCurve = input.slice();
    offCurve[159] ^= 1;
    expect(p256Verify(offCurve)).toEqual(new Uint8Array());
  });
});

describe('the precompiles each upgrade adds or bounds', () => {
  it('Fjord adds P256VERIFY at 0x100; Granite bounds the BN254 pairing to 112,687 bytes of input (all gas taken beyond), the pairing unchanged below', async () => {
    const rollup = rollupFromConfig({ l2_chain_id: 10, fjord_time: 100, granite_time: 200 });
    const common = opCommon(rollup, 'granite');
    expect(opPrecompiles(rollup, 99n, common)).toEqual([]);
    expect(opPrecompiles(rollup, 100n, common).map((p) => p.address.toString())).toEqual(['0x0000000000000000000000000000000000000100']);
    const granite = opPrecompiles(rollup, 200n, common);
    expect(granite.map((p) => p.address.toString())).toEqual(['0x0000000000000000000000000000000000000100', '0x0000000000000000000000000000000000000008']);
    const pairing = (granite[1] as { function: (o: unknown) => { returnValue: Uint8Array; executionGasUsed: bigint; exceptionError?: unknown } }).function;
    const evm = await createEVM({ common });
    const tooLong = pairing({ data: new Uint8Array(BN254_PAIRING_MAX_INPUT_GRANITE + 1), gasLimit: 10_000_000n, common, _EVM: evm });
    expect([tooLong.executionGasUsed, tooLong.exceptionError !== undefined]).toEqual([10_000_000n, true]);
    // No pairs: the check holds (1), for the base 45,000 gas.
    const empty = pairing({ data: new Uint8Array(), gasLimit: 10_000_000n, common, _EVM: evm });
    expect([bytesToHex(empty.returnValue), empty.executionGasUsed]).toEqual([`0x${'00'.repeat(31)}01`, 45_000n]);
  });

  it('Isthmus bounds the BLS12-381 G1 MSM, G2 MSM and pairing inputs (513,760, 488,448 and 235,008 bytes: op-revm’s), the precompiles unchanged below', async () => {
    const rollup = rollupFromConfig({ l2_chain_id: 10, fjord_time: 0, granite_time: 0, isthmus_time: 300 });
    const common = opCommon(rollup, 'isthmus');
    expect(opPrecompiles(rollup, 299n, common)).toHaveLength(2);
    const isthmus = opPrecompiles(rollup, 300n, common);
    expect(isthmus.map((p) => p.address.toString()).slice(2)).toEqual([
      '0x000000000000000000000000000000000000000c',
      '0x000000000000000000000000000000000000000e',
      '0x000000000000000000000000000000000000000f',
    ]);
    expect(ISTHMUS_BLS_BOUNDS.map(([, max]) => max)).toEqual([513_760, 488_448, 235_008]);
    const evm = await createBlockVM({ common });
    type Result = { returnValue: Uint8Array; executionGasUsed: bigint; exceptionError?: { error: string } };
    type Run = (o: unknown) => Result | Promise<Result>;
    // One element (a point and scalar of 160 or 288 bytes, a pair of 384) past each bound: a length
    // Prague takes, whose run would cost more than the call's gas (out of gas), refused instead for its length.
    const elements = [160, 288, 384];
    for (const [i, [, max]] of ISTHMUS_BLS_BOUNDS.entries()) {
      const run = (isthmus[2 + i] as { function: Run }).function;
      const tooLong = await run({ data: new Uint8Array(max + elements[i]), gasLimit: 1_000_000n, common, _EVM: evm.evm });
      expect([tooLong.executionGasUsed, tooLong.exceptionError?.error]).toEqual([1_000_000n, 'invalid input length']);
      const atBound = await run({ data: new Uint8Array(max), gasLimit: 1_000_000n, common, _EVM: evm.evm });
      expect(atBound.exceptionError?.error).toBe('out of gas');
    }
    // Below the bound the pairing runs: one pair of the points at infinity checks (1) for 37,700 + 32,600 gas.
    const pairing = (isthmus[4] as { function: Run }).function;
    const infinity = await pairing({ data: new Uint8Array(384), gasLimit: 1_000_000n, common, _EVM: evm.evm });
    expect([bytesToHex(infinity.returnValue), infinity.executionGasUsed]).toEqual([`0x${'00'.repeat(31)}01`, 70_300n]);
  });

  it('Jovian bounds them smaller (BN254 pairing 81,984; G1 MSM 288,960; G2 MSM 278,784; BLS12-381 pairing 156,672: op-reth’s), the precompiles unchanged below', async () => {
    const rollup = rollupFromConfig({ l2_chain_id: 10, fjord_time: 0, granite_time: 0, isthmus_time: 0, jovian_time: 300 });
    const common = opCommon(rollup, 'jovian');
    expect(BN254_PAIRING_MAX_INPUT_JOVIAN).toBe(81_984);
    expect(JOVIAN_BLS_BOUNDS.map(([, max]) => max)).toEqual([288_960, 278_784, 156_672]);
    const evm = await createBlockVM({ common });
    type Result = { returnValue: Uint8Array; executionGasUsed: bigint; exceptionError?: { error: string } };
    type Run = (o: unknown) => Result | Promise<Result>;
    const bounds = (time: bigint) => opPrecompiles(rollup, time, common).slice(1) as unknown as Array<{ function: Run }>;
    // One element past each Jovian bound (a BN254 pair of 192 bytes; 160, 288, 384 for the BLS ones):
    // refused for its length from Jovian, and still taken (run out of gas) at Isthmus.
    const elements = [192, 160, 288, 384];
    const maxima = [BN254_PAIRING_MAX_INPUT_JOVIAN, ...JOVIAN_BLS_BOUNDS.map(([, max]) => max)];
    for (const [i, max] of maxima.entries()) {
      const data = new Uint8Array(max + elements[i]);
      const jovian = await bounds(300n)[i].function({ data, gasLimit: 100_000n, common, _EVM: evm.evm });
      expect([jovian.executionGasUsed, jovian.exceptionError?.error], `bound ${max}`).toEqual([100_000n, 'invalid input length']);
      const isthmus = await bounds(299n)[i].function({ data, gasLimit: 100_000n, common, _EVM: evm.evm });
      expect(isthmus.exceptionError?.error, `bound ${max} at Isthmus`).toBe('out of gas');
    }
  });
});
