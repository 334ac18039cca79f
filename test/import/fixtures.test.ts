import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToBigInt, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { afterAll, describe, expect, it } from 'vitest';
import { openChain } from '../../src/chain/open.js';
import { headerBloomAndTimestamp } from '../../src/chain/store.js';
import { bigIntToQuantity } from '../../src/codec/hex.js';
import { importBlocks } from '../../src/import/importChain.js';
import { initDatadir } from '../../src/import/init.js';
import { StateReader } from '../../src/state/stateReader.js';
import { FIXTURES, importFixtureChain, tempDir } from '../helpers/chains.js';
import { testConfig } from '../helpers/testConfig.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** One account of a test's post-state (expected.json). */
interface PostAccount {
  balance: string;
  nonce: string;
  code: string;
  storage: Record<string, string>;
}

interface SummaryLine {
  number: number;
  hash: string;
  txs: number;
  uncles: number;
  withdrawals: number | null;
  timestamp: number;
  difficulty: string;
}

describe('import: execution-apis chains', () => {
  it.each([
    ['execution-apis', '0x44fd89d504659cd58f48f4796b77a7e7012cf296a2409afa2f6c3cb99b5b3d99', 54n],
    ['execution-apis-prague', '0x79e0f5ffb6a0c9f54d507dbbadc935603ac1db86d32f7857472180a75ec11f90', 45n],
  ])('%s: genesis hash and every block hash match the fixture', async (name, genesisHash, headNumber) => {
    const dir = join(FIXTURES, name);
    const chain = await importFixtureChain(dir, join(tmp.dir, name));
    try {
      expect(bytesToHex((await chain.store.canonicalHash(0n))!)).toBe(genesisHash);
      const summary: SummaryLine[] = readFileSync(join(dir, 'chain-summary.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(summary.length).toBe(Number(headNumber));
      for (const line of summary) {
        const hash = (await chain.store.canonicalHash(BigInt(line.number)))!;
        expect(bytesToHex(hash)).toBe(line.hash);
        // Transaction hashes read from the raw block RLP (the log scan's path) equal those of the
        // decoded transaction objects, for every transaction type of the chain.
        const fromRaw = (await chain.store.txHashes(hash))!.map(bytesToHex);
        expect(fromRaw.length).toBe(line.txs);
        const block = (await chain.store.blockByHash(hash))!;
        expect(fromRaw).toEqual(block.transactions.map((tx) => bytesToHex(tx.hash())));
        // The rest of the summary line, from the stored block.
        expect(block.uncleHeaders.length).toBe(line.uncles);
        expect(block.withdrawals?.length ?? null).toBe(line.withdrawals);
        expect(Number(block.header.timestamp)).toBe(line.timestamp);
        expect(`0x${block.header.difficulty.toString(16)}`).toBe(line.difficulty);
        // The log scan's bloom and timestamp, read by walking the header RLP, equal the decoded header's.
        const header = (await chain.store.headerByHash(hash))!;
        const [bloom, timestamp] = headerBloomAndTimestamp(header.serialize());
        expect([bytesToHex(bloom), timestamp]).toEqual([bytesToHex(header.logsBloom), header.timestamp]);
      }
      const head = await chain.store.head();
      expect(head?.number).toBe(headNumber);
      const fcu = JSON.parse(readFileSync(join(dir, 'headfcu.json'), 'utf8'));
      expect(bytesToHex(head!.hash)).toBe(fcu.params[0].headBlockHash);
    } finally {
      await chain.close();
    }
  });
});

describe('import: uncle chains', () => {
  const root = join(FIXTURES, 'uncle-chains');
  const names = readdirSync(root).filter((n) => !n.endsWith('.md'));
  it('has the 11 chains', () => expect(names.length).toBe(11));
  it.each(names)('%s: every block hash and stateRoot match expected.json', async (name) => {
    const expected = JSON.parse(readFileSync(join(root, name, 'expected.json'), 'utf8'));
    const chain = await importFixtureChain(join(root, name), join(tmp.dir, name));
    try {
      expect(bytesToHex((await chain.store.canonicalHash(0n))!)).toBe(expected.genesis.hash);
      for (const b of expected.blocks) {
        const header = await chain.store.headerByNumber(BigInt(b.number));
        expect(bytesToHex(header!.hash())).toBe(b.hash);
        expect(bytesToHex(header!.stateRoot)).toBe(b.stateRoot);
        expect(bytesToHex(header!.parentHash)).toBe(b.parentHash);
        expect(bytesToHex(header!.uncleHash)).toBe(b.sha3Uncles);
        expect(header!.coinbase.toString()).toBe(b.miner);
        expect(bigIntToQuantity(header!.difficulty)).toBe(b.difficulty);
        expect(bigIntToQuantity(header!.gasUsed)).toBe(b.gasUsed);
        if (b.baseFeePerGas !== undefined) expect(bigIntToQuantity(header!.baseFeePerGas!)).toBe(b.baseFeePerGas);
      }
      const head = await chain.store.head();
      expect(bytesToHex(head!.hash)).toBe(expected.head.hash);
      // The post-state of the test (balance, nonce, code, storage of every account), read from the
      // imported trie at the head.
      const root = (await chain.store.headerByHash(head!.hash))!.stateRoot;
      const state = new StateReader(chain.level, testConfig().caches);
      for (const [address, want] of Object.entries(expected.postState as Record<string, PostAccount>)) {
        const addr = hexToBytes(address as `0x${string}`);
        const account = await state.account(root, addr);
        expect([bigIntToQuantity(account?.balance ?? 0n), bigIntToQuantity(account?.nonce ?? 0n)], address).toEqual([want.balance, want.nonce]);
        expect(bytesToHex(await state.code(root, addr)), address).toBe(want.code);
        for (const [slot, value] of Object.entries(want.storage)) {
          expect(bytesToBigInt(await state.storage(root, addr, hexToBytes(slot as `0x${string}`))), `${address} ${slot}`).toBe(BigInt(value));
        }
      }
    } finally {
      await chain.close();
    }
  });
});

describe('import: verification and resumption', () => {
  const dir = join(FIXTURES, 'uncle-chains', 'twoUncle_London');
  const genesis = readFileSync(join(dir, 'genesis.json'), 'utf8');
  const rlp = readFileSync(join(dir, 'chain.rlp'));

  it('skips blocks already present and keeps the head', async () => {
    const datadir = join(tmp.dir, 'resume');
    await initDatadir(datadir, genesis, testConfig());
    const chain = await openChain(datadir, testConfig().caches);
    try {
      const first = await importBlocks(chain, [rlp], testConfig().import);
      expect([first.imported, first.skipped]).toEqual([3, 0]);
      const second = await importBlocks(chain, [rlp], testConfig().import);
      expect([second.imported, second.skipped]).toEqual([0, 3]);
      expect(second.head.hash).toBe('0xaf92db7991c1bf179e927f9579878fbdee2c180b9dd9ad607d15cb0d10eac005');
    } finally {
      await chain.close();
    }
  });

  it('init again with the same genesis is a no-op, with another genesis is refused', async () => {
    const datadir = join(tmp.dir, 'reinit');
    expect((await initDatadir(datadir, genesis, testConfig())).alreadyInitialised).toBe(false);
    expect((await initDatadir(datadir, genesis, testConfig())).alreadyInitialised).toBe(true);
    const other = readFileSync(join(FIXTURES, 'execution-apis-prague', 'genesis.json'), 'utf8');
    await expect(initDatadir(datadir, other, testConfig())).rejects.toThrow(/holds another chain/);
  });
});
