import { type BlockHeader, createBlockHeader } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { bytesToHex } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { headChange } from './headChange.js';
import type { ChainStore, Head } from './store.js';

/**
 * headChange on hand-made branches: headers linked by parent hash (a branch is told apart by its
 * extraData), held in a map that stands in for the store's by-hash lookup.
 */

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Shanghai });
const byHash = new Map<string, BlockHeader>();
const store = { headerByHash: async (hash: Uint8Array) => byHash.get(bytesToHex(hash)) } as unknown as ChainStore;

/** Headers 1..to on top of `parent`, branch `tag`. */
function branch(parent: BlockHeader, to: number, tag: string): BlockHeader[] {
  const out: BlockHeader[] = [];
  let p = parent;
  for (let n = Number(p.number) + 1; n <= to; n++) {
    const h = createBlockHeader(
      {
        number: BigInt(n),
        parentHash: p.hash(),
        extraData: new TextEncoder().encode(tag),
        gasLimit: 30_000_000n,
        timestamp: BigInt(n * 12),
        baseFeePerGas: 7n,
      },
      { common },
    );
    byHash.set(bytesToHex(h.hash()), h);
    out.push(h);
    p = h;
  }
  return out;
}

const genesis = createBlockHeader({ number: 0n, gasLimit: 30_000_000n, baseFeePerGas: 7n }, { common });
byHash.set(bytesToHex(genesis.hash()), genesis);
const main = [genesis, ...branch(genesis, 10, 'a')]; // main[n] is block n
const side = branch(main[6], 9, 'b'); // blocks 7..9 of another branch above block 6
const head = (h: BlockHeader): Head => ({ number: h.number, hash: h.hash() });
const numbers = (hs: readonly BlockHeader[]) => hs.map((h) => `${h.number}${new TextDecoder().decode(h.extraData)}`);

describe('headChange', () => {
  it('an extension: the new blocks oldest first, nothing removed', async () => {
    const c = await headChange(store, head(main[7]), head(main[10]), 100);
    expect([numbers(c.removed), numbers(c.added), c.truncated]).toEqual([[], ['8a', '9a', '10a'], false]);
  });

  it('a reorganisation to a longer branch: the old blocks newest first, then the new ones oldest first', async () => {
    const c = await headChange(store, head(main[8]), head(side[2]), 100);
    expect([numbers(c.removed), numbers(c.added)]).toEqual([
      ['8a', '7a'],
      ['7b', '8b', '9b'],
    ]);
  });

  it('a reorganisation to a shorter branch, and a rollback (the new head an ancestor of the old)', async () => {
    const shorter = await headChange(store, head(main[10]), head(side[1]), 100);
    expect([numbers(shorter.removed), numbers(shorter.added)]).toEqual([
      ['10a', '9a', '8a', '7a'],
      ['7b', '8b'],
    ]);
    const rollback = await headChange(store, head(main[9]), head(main[6]), 100);
    expect([numbers(rollback.removed), numbers(rollback.added)]).toEqual([['9a', '8a', '7a'], []]);
  });

  it('the same head: no change; more new blocks than the bound: the newest ones, truncated', async () => {
    expect(await headChange(store, head(main[5]), head(main[5]), 100)).toEqual({ removed: [], added: [], truncated: false });
    const c = await headChange(store, head(main[2]), head(main[10]), 3);
    expect([numbers(c.added), c.truncated]).toEqual([['8a', '9a', '10a'], true]);
  });
});

describe('headChange over blocks that name no parent (Hardhat reserved blocks, a zero parentHash)', () => {
  // 1..3 linked, 4..6 with a zero parentHash, 7 naming 6: the canonical block below stands in for the parent.
  const canonical: BlockHeader[] = [genesis];
  for (let n = 1; n <= 7; n++) {
    const reserved = n >= 4 && n <= 6;
    const h = createBlockHeader(
      {
        number: BigInt(n),
        parentHash: reserved ? new Uint8Array(32) : canonical[n - 1].hash(),
        gasLimit: 30_000_000n,
        timestamp: BigInt(n * 12),
        baseFeePerGas: 7n,
      },
      { common },
    );
    byHash.set(bytesToHex(h.hash()), h);
    canonical.push(h);
  }
  const withNumbers = { ...store, headerByHash: store.headerByHash, headerByNumber: async (n: bigint) => canonical[Number(n)] } as unknown as ChainStore;

  it('an extension through them lists every new block', async () => {
    const c = await headChange(withNumbers, head(canonical[3]), head(canonical[7]), 100);
    expect(c.added.map((h) => h.number)).toEqual([4n, 5n, 6n, 7n]);
    expect(c.removed).toEqual([]);
  });
});
