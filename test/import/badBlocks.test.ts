import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex } from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak.js';
import { afterAll, describe, expect, it } from 'vitest';
import { openChain } from '../../src/chain/open.js';
import { importBlocks } from '../../src/import/importChain.js';
import { initDatadir } from '../../src/import/init.js';
import { splitRlpItems } from '../../src/import/rlpFile.js';
import { FIXTURES, tempDir } from '../helpers/chains.js';
import { testConfig } from '../helpers/testConfig.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const dir = join(FIXTURES, 'uncle-chains', 'twoUncle_London');
const genesis = readFileSync(join(dir, 'genesis.json'), 'utf8');
const blocks = splitRlpItems(readFileSync(join(dir, 'chain.rlp')));
const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));

type Raw = [Uint8Array[], unknown[], Uint8Array[][]];
/** Re-encodes block `index` after `edit` changes its decoded [header, txs, uncles]. */
function tampered(index: number, edit: (raw: Raw) => void): Uint8Array[] {
  const raw = RLP.decode(blocks[index]) as unknown as Raw;
  edit(raw);
  const out = [...blocks];
  out[index] = RLP.encode(raw as never);
  return out;
}

async function importExpectingFailure(name: string, files: Uint8Array[]) {
  const datadir = join(tmp.dir, name);
  await initDatadir(datadir, genesis, testConfig());
  const chain = await openChain(datadir, testConfig().caches);
  try {
    const error = await importBlocks(chain, files, testConfig().import).then(
      () => undefined,
      (err: Error) => err,
    );
    const head = await chain.store.head();
    return { error, head: head!, chain };
  } finally {
    await chain.close();
  }
}

describe('import: a bad block is rejected, named, and not written', () => {
  it('wrong stateRoot', async () => {
    const bad = new Uint8Array(32).fill(0xab);
    const { error, head } = await importExpectingFailure(
      'stateRoot',
      tampered(1, (raw) => (raw[0][3] = bad)),
    );
    expect(error?.message).toMatch(new RegExp(`^block 2 \\(0x[0-9a-f]{64}\\): stateRoot ${expected.blocks[1].stateRoot} != header 0x(ab){32}$`));
    expect(head.number).toBe(1n);
    expect(bytesToHex(head.hash)).toBe(expected.blocks[0].hash);
  });

  it('wrong gasUsed', async () => {
    const { error, head } = await importExpectingFailure(
      'gasUsed',
      tampered(0, (raw) => (raw[0][10] = Uint8Array.of(0x52, 0x09))),
    );
    expect(error?.message).toMatch(/^block 1 \(0x[0-9a-f]{64}\): gasUsed 21000 != header 21001$/);
    expect(head.number).toBe(0n);
  });

  it('an uncle with a wrong difficulty', async () => {
    const { error, head } = await importExpectingFailure(
      'uncle',
      tampered(2, (raw) => {
        raw[2][0][7] = Uint8Array.of(0x03, 0x00, 0x00);
        // keep the uncle hash consistent so the body check passes and the uncle rules are reached
        raw[0][1] = keccakOfUncles(raw[2]);
      }),
    );
    expect(error?.message).toMatch(/^block 3 \(0x[0-9a-f]{64}\): uncle 0x[0-9a-f]{64}: difficulty 196608 != expected 131072$/);
    expect(head.number).toBe(2n);
  });

  it('a block whose parent is not stored', async () => {
    const { error, head } = await importExpectingFailure('gap', [blocks[0], blocks[2]]);
    expect(error?.message).toMatch(/^block 3 \(0x[0-9a-f]{64}\): its parent 0x[0-9a-f]{64} is neither stored nor earlier in the file$/);
    expect(head.number).toBe(1n);
  });

  it('a truncated file', async () => {
    const { error, head } = await importExpectingFailure('truncated', [blocks[0].subarray(0, 100)]);
    expect(error?.message).toMatch(/truncated RLP item at byte 0/);
    expect(head.number).toBe(0n);
  });
});

function keccakOfUncles(uncles: Uint8Array[][]): Uint8Array {
  return keccak256(RLP.encode(uncles as never));
}
