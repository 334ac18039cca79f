import { bytesToHex, concatBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../../codec/keccak.js';
import { decodeL1Info } from './l1Info.js';

const selector = (signature: string) => keccak256(new TextEncoder().encode(signature)).subarray(0, 4);
const n = (value: bigint, bytes: number) => setLengthLeft(hexToBytes(`0x${value.toString(16).padStart(2, '0')}`), bytes);

describe('L1-info deposit calldata', () => {
  it('each format is known by its function selector (keccak-256 of the L1Block setter, as op-reth’s tests check it)', () => {
    const bedrock = concatBytes(selector('setL1BlockValues(uint64,uint64,uint256,bytes32,uint64,bytes32,uint256,uint256)'), new Uint8Array(256));
    expect(decodeL1Info(bedrock)?.format).toBe('bedrock');
    expect(decodeL1Info(concatBytes(selector('setL1BlockValuesEcotone()'), new Uint8Array(160)))?.format).toBe('ecotone');
    expect(decodeL1Info(concatBytes(selector('setL1BlockValuesIsthmus()'), new Uint8Array(172)))?.format).toBe('isthmus');
    expect(decodeL1Info(concatBytes(selector('setL1BlockValuesJovian()'), new Uint8Array(174)))?.format).toBe('jovian');
    // A known selector with the wrong length, or an unknown selector: no attributes.
    expect(decodeL1Info(concatBytes(selector('setL1BlockValuesJovian()'), new Uint8Array(172)))).toBeUndefined();
    expect(decodeL1Info(hexToBytes('0xdeadbeef'))).toBeUndefined();
  });

  it('Jovian’s packed fields at op-reth’s offsets: scalars, sequence, time, number, fees, hashes, operator fee, DA footprint scalar', () => {
    const calldata = concatBytes(
      selector('setL1BlockValuesJovian()'),
      n(1_368n, 4), // baseFeeScalar
      n(810_949n, 4), // blobBaseFeeScalar
      n(5n, 8), // sequence number
      n(1_764_691_201n, 8), // L1 time
      n(23_000_000n, 8), // L1 number
      n(7_000_000_000n, 32), // L1 base fee
      n(1_000n, 32), // blob base fee
      new Uint8Array(32).fill(4), // L1 block hash
      new Uint8Array(32).fill(6), // batcher hash
      n(2_000n, 4), // operator fee scalar
      n(300_000n, 8), // operator fee constant
      n(400n, 2), // DA footprint gas scalar
    );
    expect(calldata.length).toBe(178);
    expect(bytesToHex(calldata.subarray(0, 4))).toBe('0x3db6be2b');
    expect(decodeL1Info(calldata)).toEqual({
      format: 'jovian',
      baseFeeScalar: 1_368n,
      blobBaseFeeScalar: 810_949n,
      l1BaseFee: 7_000_000_000n,
      l1BlobBaseFee: 1_000n,
      operatorFeeScalar: 2_000n,
      operatorFeeConstant: 300_000n,
      daFootprintGasScalar: 400n,
    });
  });
});
