import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { type Block, type BlockHeader, createBlockHeaderFromRLP } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, hexToBytes } from '@ethereumjs/util';
import { knownOpChain } from '../../src/chain/op/chains.js';
import { opBlock } from '../../src/chain/op/opBlock.js';
import { type OpRollup, opCommon, upgradeAt } from '../../src/chain/op/rollup.js';
import type { OpBlockResult } from '../../src/execution/op/opBlockRun.js';
import { parentOnly, runOnPreState } from './opBlocks.js';

/**
 * The real OP Mainnet blocks of June 2024 (Ecotone) in `fixtures/op-stack/kona-ecotone/` (see the
 * README there): kona's first executor tests, each the parent header and the block's header (RLP,
 * as kona's test source wrote them), the block's transactions, and the keccak preimages (trie
 * nodes, codes) of its pre-state kona recorded.
 */

export const KONA_ECOTONE = resolve(import.meta.dirname, '../../fixtures/op-stack/kona-ecotone');

export interface OpEcotoneBlock {
  number: bigint;
  rollup: OpRollup;
  parent: BlockHeader;
  block: Block;
  transactions: Uint8Array[];
  /** The preimage values (0x-hex; the file keys them by their keccak-256 and writes them without 0x, as kona's `output.json`). */
  preimages: string[];
}

const FILE = /^op-mainnet-(\d+)\.json\.br$/;
const hex = (s: string) => hexToBytes(s as `0x${string}`);

/** Every block, read by OP Mainnet's known rules at the upgrade of its time. */
export function loadKonaEcotoneBlocks(): OpEcotoneBlock[] {
  const rollup = knownOpChain(10n)!.rollup;
  return readdirSync(KONA_ECOTONE)
    .filter((f) => FILE.test(f))
    .map((file) => {
      const json = JSON.parse(brotliDecompressSync(readFileSync(join(KONA_ECOTONE, file))).toString('utf8')) as {
        parentHeader: string;
        header: string;
        transactions: string[];
        preimages: Record<string, string>;
      };
      const raw = hex(json.header);
      // The time decides the upgrade, and the upgrade the header's fields: read the time first.
      const time = bytesToBigInt((RLP.decode(raw) as Uint8Array[])[11]);
      const common = opCommon(rollup, upgradeAt(rollup, time));
      const header = createBlockHeaderFromRLP(raw, { common, setHardfork: false });
      const parent = createBlockHeaderFromRLP(hex(json.parentHeader), { common, setHardfork: false });
      const transactions = json.transactions.map(hex);
      return {
        number: header.number,
        rollup,
        parent,
        block: opBlock(header, transactions, []),
        transactions,
        preimages: Object.values(json.preimages).map((v) => `0x${v}`),
      };
    });
}

/** The block run by tracenode's OP executor on its preimages. */
export function executeEcotoneBlock(b: OpEcotoneBlock): Promise<OpBlockResult> {
  return runOnPreState({ ...b, state: b.preimages, codes: b.preimages, blockchain: parentOnly(b.parent, 'the fixture') });
}
