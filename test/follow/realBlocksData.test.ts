import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { beforeAll, describe, expect, it } from 'vitest';
import { keccak256 } from '../../src/codec/keccak.js';
import { loadRealBlocks, type RealBlock, type RealBlockJson, readRealBlockJson, realBlockFiles, verifyRealBlock } from '../helpers/realBlocks.js';

/**
 * fixtures/real-blocks: every vendored public-network block loads and passes the loader's
 * checks (test/helpers/realBlocks.ts: header hash, transaction and withdrawal tries, the
 * parent link, the pre-state root node). Then what the fixtures are expected to hold, so that a
 * file added, dropped or regenerated differently shows here. Last, the loader's refusals, on
 * fixtures altered in memory.
 */

/** Mainnet's first Prague block (timestamp 1746612311); EIP-2935's window is 8191 blocks. */
const MAINNET_PRAGUE_BLOCK = 22_431_084;

describe('fixtures/real-blocks', () => {
  let blocks: RealBlock[];
  beforeAll(async () => {
    blocks = await loadRealBlocks();
  }, 300_000);

  it('loads and verifies every file', () => {
    expect(blocks.map((b) => b.file)).toEqual(realBlockFiles());
    expect(blocks).toHaveLength(24);
  });

  it('has the expected blocks per network', () => {
    const count: Record<string, number> = {};
    for (const b of blocks) count[b.json.network] = (count[b.json.network] ?? 0) + 1;
    expect(count).toEqual({ mainnet: 7, sepolia: 1, holesky: 5, hoodi: 11 });
    expect(blocks.filter((b) => b.json.prePrague).map((b) => b.file)).toEqual([
      'holesky-2971844.json.br',
      'holesky-2971845.json.br',
      'holesky-2971846.json.br',
      'holesky-2971847.json.br',
    ]);
  });

  it('has a block more than 8192 blocks after Prague', () => {
    const late = blocks.filter((b) => b.json.network === 'mainnet' && b.json.number > MAINNET_PRAGUE_BLOCK + 8192);
    expect(late.length).toBeGreaterThan(0);
  });

  it('has the parent header, or the 256 ancestor hashes, of every block', () => {
    for (const b of blocks) {
      if (b.parent === undefined) expect(Object.keys(b.json.ancestorHashes ?? {}), b.file).toHaveLength(256);
      else expect(b.parent.number, b.file).toBe(b.block.header.number - 1n);
    }
  });

  it('chains the consecutive blocks by hash', () => {
    const byKey = new Map(blocks.map((b) => [`${b.json.network}-${b.json.number}`, b]));
    const pairs = [
      ['mainnet-24628607', 'mainnet-24628608'],
      ['holesky-2971844', 'holesky-2971845'],
      ['holesky-2971845', 'holesky-2971846'],
      ['holesky-2971846', 'holesky-2971847'],
    ];
    for (const [a, b] of pairs) {
      expect(bytesToHex(byKey.get(b)!.block.header.parentHash), `${a} -> ${b}`).toBe(byKey.get(a)!.json.hash);
      // the pre-state of one block is the post-state of the one before
      expect(bytesToHex(byKey.get(b)!.parentStateRoot), `${a} -> ${b}`).toBe(bytesToHex(byKey.get(a)!.block.header.stateRoot));
    }
    // sbv lists every earlier holesky block's hash too
    const last = byKey.get('holesky-2971847')!;
    for (const n of [2971844, 2971845, 2971846]) expect(last.json.ancestorHashes![String(n)]).toBe(byKey.get(`holesky-${n}`)!.json.hash);
  });

  it('lists the embedded (< 32 bytes) nodes of each witness that has them', () => {
    const embedded: Record<string, number> = {};
    for (const b of blocks) {
      const n = b.witness.state.filter((node) => node.length < 32).length;
      if (n > 0) embedded[b.file] = n;
    }
    expect(embedded).toEqual({
      'mainnet-23587691.json.br': 1,
      'mainnet-24341035.json.br': 1,
      'mainnet-24628607.json.br': 1,
      'mainnet-24628608.json.br': 1,
      'mainnet-24647140.json.br': 1,
      'mainnet-25229957.json.br': 1,
      'sepolia-10100112.json.br': 1,
      'hoodi-974567.json.br': 1,
      'hoodi-1041734.json.br': 1,
      'hoodi-1130549.json.br': 1,
      'hoodi-1132599.json.br': 1,
      'hoodi-1137728.json.br': 1,
      'hoodi-1145479.json.br': 1,
      'hoodi-1192723.json.br': 1,
      'hoodi-1219705.json.br': 1,
      'hoodi-1265656.json.br': 1,
      'hoodi-1281069.json.br': 1251,
    });
    // apart from hoodi 1281069, the one short entry is 0x80 (the empty string: the empty trie's root)
    for (const b of blocks.filter((x) => x.file !== 'hoodi-1281069.json.br')) {
      for (const node of b.witness.state.filter((x) => x.length < 32)) expect(bytesToHex(node), b.file).toBe('0x80');
    }
  });
});

describe('the real-block loader', () => {
  const altered = (file: string, change: (json: RealBlockJson) => void): Promise<RealBlock> => {
    const json = readRealBlockJson(file);
    change(json);
    return verifyRealBlock(json);
  };

  it("refuses a block whose hash is not its header's", async () => {
    await expect(altered('hoodi-1041734.json.br', (j) => (j.hash = `0x${'00'.repeat(32)}`))).rejects.toThrow(/header hashes to/);
  });

  it('refuses a block missing a transaction', async () => {
    await expect(
      altered('holesky-2971844.json.br', (j) => {
        const [header, txs, uncles, withdrawals] = RLP.decode(hexToBytes(j.block as `0x${string}`)) as Uint8Array[][];
        j.block = bytesToHex(RLP.encode([header, txs.slice(1), uncles, withdrawals]));
      }),
    ).rejects.toThrow(/transactionsRoot/);
  });

  it('refuses a witness whose last header is not the parent', async () => {
    await expect(altered('hoodi-974567.json.br', (j) => j.witness.headers.pop())).rejects.toThrow(/not the parent/);
    await expect(altered('hoodi-974567.json.br', (j) => j.witness.headers.splice(3, 1))).rejects.toThrow(/does not follow/);
  });

  it('refuses ancestor hashes that name another parent', async () => {
    await expect(altered('holesky-2971844.json.br', (j) => (j.ancestorHashes!['2971843'] = `0x${'11'.repeat(32)}`))).rejects.toThrow(/another parent/);
  });

  it('refuses a witness without the parent state root node, or with a node twice', async () => {
    const rootless = (j: RealBlockJson) => {
      const parentStateRoot = bytesToHex((RLP.decode(hexToBytes(j.witness.headers.at(-1) as `0x${string}`)) as Uint8Array[])[3]);
      j.witness.state = j.witness.state.filter((node) => bytesToHex(keccak256(hexToBytes(node as `0x${string}`))) !== parentStateRoot);
    };
    await expect(altered('hoodi-1041734.json.br', rootless)).rejects.toThrow(/parent state root/);
    await expect(altered('hoodi-1041734.json.br', (j) => j.witness.state.push(j.witness.state[0]))).rejects.toThrow(/listed twice/);
  });
});
