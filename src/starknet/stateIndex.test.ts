import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StarknetImportError, StateUpdateLines } from './importBlocks.js';
import { parseStateUpdateJson } from './stateIndex.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/starknet');
const lines = readFileSync(join(FIXTURES, 'sepolia-integration-state-updates.ndjson'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '');

describe('state updates: parsing and reading along the blocks', () => {
  it('a real update (sepolia-integration block 35748): its diff, the declared classes included', () => {
    const update = parseStateUpdateJson(JSON.parse(lines[1]));
    expect(update.blockHash).toBe('0x1ea2a9cfa3df5297d58c0a04d09d276bc68d40fe64701305bbe2ed8f417e869');
    expect(update.diff.storage).toHaveLength(3);
    expect(update.diff.storage[0]).toEqual({ address: '0x1', key: '0x8b9a', value: '0x6ae6fe45c608e642524de25140f19a44d40dc26286e38d3f184c7fb2fd21767' });
    expect(update.diff.nonces).toEqual([{ address: '0x472aa8128e01eb0df145810c9511a92852d62a68ba8198ce5fa414e6337a365', nonce: '0xf' }]);
    expect(update.diff.declared).toHaveLength(2);
    expect(update.diff.classes).toEqual([]);
    expect(update.json).toEqual(JSON.parse(lines[1]));
  });

  it('a malformed update names its field; a pending update (no block_hash) is refused', () => {
    const good = JSON.parse(lines[0]);
    const bad = structuredClone(good);
    bad.state_diff.nonces[0].nonce = '0xzz';
    expect(() => parseStateUpdateJson(bad)).toThrow('state_diff.nonces[0].nonce: invalid felt "0xzz": not hexadecimal');
    const { block_hash: _, new_root: __, ...pending } = good;
    expect(() => parseStateUpdateJson(pending)).toThrow('block_hash: want a felt string, got undefined');
    expect(() => parseStateUpdateJson({ ...good, state_diff: { deployed_contracts: [{ address: '0x1' }] } })).toThrow(
      'state_diff.deployed_contracts[0].class_hash: want a felt string, got undefined',
    );
  });

  it('updates are taken in the blocks’ order; one naming no imported block fails at the end with its line', async () => {
    const hashes = lines.map((l) => JSON.parse(l).block_hash as string);
    const along = new StateUpdateLines(['', ...lines], 'su.ndjson');
    expect(await along.take('0x1234')).toBeUndefined();
    expect((await along.take(hashes[0]))?.blockHash).toBe(hashes[0]);
    // Block 35748 is skipped (its update stays next), so 63881's does not match either.
    expect(await along.take(hashes[2])).toBeUndefined();
    const err = await along.finish().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StarknetImportError);
    expect((err as Error).message).toBe(
      `su.ndjson line 3: state update of block ${hashes[1]} matches no imported block (state updates follow the blocks' order)`,
    );
  });
});
