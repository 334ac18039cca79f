import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { hexToBytes } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../../../test/helpers/chains.js';
import type { L1FeeParams, L1FeeRules } from '../../chain/op/l1Info.js';
import { flzCompressLength } from './fastLz.js';
import { l1Cost, l1FeeAt, l1FeeRulesFor } from './l1Cost.js';

/** The vendored vectors (fixtures/op-stack/README.md names their sources). */
interface Vectors {
  opGeth: { tx: string; params: Record<string, string>; expected: Record<'bedrock' | 'regolith' | 'ecotone', { fee: string; gasUsed: string }> };
  maili: {
    params: Record<string, string>;
    expected: Array<{ tx: string; rules: L1FeeRules; fee: string }>;
    flz: Array<{ name: string; input: string; flzCompressLength: number }>;
    opMainnetFjordBlock124665056: Record<string, string>;
  };
}
const VECTORS = JSON.parse(gunzipSync(readFileSync(join(FIXTURES, 'op-stack', 'l1-fee-vectors.json.gz'))).toString('utf8')) as Vectors;

const bytes = (hex: string) => hexToBytes(hex as `0x${string}`);
const params = (p: Record<string, string>): L1FeeParams => ({
  l1BaseFee: BigInt(p.l1BaseFee),
  overhead: BigInt(p.overhead ?? 0),
  scalar: BigInt(p.scalar ?? 0),
  l1BlobBaseFee: BigInt(p.l1BlobBaseFee),
  baseFeeScalar: BigInt(p.baseFeeScalar),
  blobBaseFeeScalar: BigInt(p.blobBaseFeeScalar),
});

describe('FastLZ compressed length (the Fjord size estimate)', () => {
  it('the reference lengths, real Base and OP Mainnet transactions among them', () => {
    expect(VECTORS.maili.flz).toHaveLength(6);
    for (const v of VECTORS.maili.flz) expect(flzCompressLength(bytes(v.input)), v.name).toBe(v.flzCompressLength);
  });

  it('op-geth’s emptyTx compresses to 31 bytes (TestFlzCompressLen)', () => {
    expect(flzCompressLength(bytes(VECTORS.opGeth.tx))).toBe(31);
  });

  it('a string without repeats grows with every byte added', () => {
    const data = Uint8Array.from({ length: 256 }, (_, i) => i);
    let last = 0;
    for (let n = 1; n <= 256; n++) {
      const now = flzCompressLength(data.subarray(0, n));
      expect(now).toBeGreaterThan(last);
      last = now;
    }
  });
});

describe('the L1 data fee of each upgrade', () => {
  it('op-geth’s vectors: Bedrock, Regolith and Ecotone on emptyTx', () => {
    const p = params(VECTORS.opGeth.params);
    for (const rules of ['bedrock', 'regolith', 'ecotone'] as const) {
      const want = VECTORS.opGeth.expected[rules];
      expect(l1Cost(bytes(VECTORS.opGeth.tx), rules, p), rules).toEqual({ fee: BigInt(want.fee), gasUsed: BigInt(want.gasUsed) });
    }
  });

  it('maili’s vectors: each rule on 0xFACADE, Fjord on a contract call', () => {
    const p = params(VECTORS.maili.params);
    for (const v of VECTORS.maili.expected) expect(l1Cost(bytes(v.tx), v.rules, p)?.fee, `${v.rules} ${v.tx.slice(0, 10)}`).toBe(BigInt(v.fee));
  });

  it('a real OP Mainnet Fjord transaction: the l1Fee and l1GasUsed of its receipt', () => {
    const v = VECTORS.maili.opMainnetFjordBlock124665056;
    expect(l1Cost(bytes(v.tx), 'fjord', params(v))).toEqual({ fee: BigInt(v.l1Fee), gasUsed: BigInt(v.l1GasUsed) });
  });

  it('Fjord below the minimum size: 100 bytes, by hand (op-geth’s emptyTx: 100e6 × (16·2·1e9 + 3·1e7) / 1e12)', () => {
    expect(l1Cost(bytes(VECTORS.opGeth.tx), 'fjord', params(VECTORS.opGeth.params))).toEqual({ fee: 3_203_000n, gasUsed: 1_600n });
  });

  it('deposits and empty bytes pay nothing', () => {
    const p = params(VECTORS.opGeth.params);
    expect(l1Cost(new Uint8Array(), 'fjord', p)).toBeUndefined();
    expect(l1Cost(Uint8Array.of(0x7e, 0xf8, 0x00), 'bedrock', p)).toBeUndefined();
  });

  it('the first Ecotone block (L1Block still without Ecotone values) is charged as Regolith (op-geth TestNewL1CostFunc)', () => {
    const p = { ...params(VECTORS.opGeth.params), l1BlobBaseFee: 0n, baseFeeScalar: 0n, blobBaseFeeScalar: 0n };
    const rules = l1FeeRulesFor('ecotone', p);
    expect(rules).toBe('regolith');
    expect(l1Cost(bytes(VECTORS.opGeth.tx), rules, p)?.fee).toBe(BigInt(VECTORS.opGeth.expected.regolith.fee));
    expect(l1FeeRulesFor('fjord', p)).toBe('regolith');
    expect(l1FeeRulesFor('ecotone', params(VECTORS.opGeth.params))).toBe('ecotone');
  });

  it('the parameters from L1Block storage, only the slots each rule reads: 1, 5, 6 before Ecotone; 1, 3 (both scalars packed), 7 after', async () => {
    const word = (value: bigint) => hexToBytes(`0x${value.toString(16).padStart(64, '0')}`);
    // Slot 3: the sequence number in bytes [24, 32), baseFeeScalar in [16, 20), blobBaseFeeScalar in [20, 24).
    const scalars = hexToBytes(`0x${'00'.repeat(16)}000000020000000300000000deadbeef`);
    const storage = new Map<bigint, Uint8Array>([
      [1n, word(1_000_000_000n)],
      [3n, scalars],
      [5n, word(50n)],
      [6n, word(7_000_000n)],
      [7n, word(10_000_000n)],
    ]);
    const all = params(VECTORS.opGeth.params);
    const reading = (slots: bigint[]) => async (slot: bigint) => {
      slots.push(slot);
      return storage.get(slot) ?? new Uint8Array(32);
    };
    const ecotoneSlots: bigint[] = [];
    expect(await l1FeeAt(reading(ecotoneSlots), 'fjord')).toEqual({ rules: 'fjord', params: { ...all, overhead: 0n, scalar: 0n } });
    expect(ecotoneSlots).toEqual([1n, 3n, 7n]);
    const bedrockSlots: bigint[] = [];
    expect(await l1FeeAt(reading(bedrockSlots), 'regolith')).toEqual({
      rules: 'regolith',
      params: { ...all, l1BlobBaseFee: 0n, baseFeeScalar: 0n, blobBaseFeeScalar: 0n },
    });
    expect(bedrockSlots).toEqual([1n, 5n, 6n]);
    // The first Ecotone block: slots 3 and 7 still zero, so Regolith's rule and its slots.
    storage.delete(3n);
    storage.delete(7n);
    const firstSlots: bigint[] = [];
    expect((await l1FeeAt(reading(firstSlots), 'ecotone')).rules).toBe('regolith');
    expect(firstSlots).toEqual([1n, 3n, 7n, 5n, 6n]);
  });
});
