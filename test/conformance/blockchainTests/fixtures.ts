import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { FIXTURES } from '../../helpers/chains.js';

/**
 * The Ethereum blockchain tests vendored under `fixtures/blockchain-tests/` (its README names every
 * source, release and commit): bundles of the published JSON files, each bundle a brotli-compressed
 * JSON object from the file's path in its source (prefixed by the source and commit) to the
 * file's text, exactly as published.
 */

export const BUNDLES_DIR = join(FIXTURES, 'blockchain-tests');

/** One header of a test, as the fixtures write it (every quantity 0x-hex). */
export type TestHeader = Record<string, string>;

/** One account of a test's `pre` or `postState`. */
export interface TestAccount {
  balance: string;
  nonce: string;
  code: string;
  storage: Record<string, string>;
}

/** One block of a test: its RLP, and what the test expects of it. */
export interface TestBlock {
  rlp: string;
  blockHeader?: TestHeader;
  expectException?: string;
  chainname?: string;
  [key: string]: unknown;
}

/** One blockchain test (a key of a fixture file). */
export interface BlockchainTest {
  network: string;
  genesisBlockHeader: TestHeader;
  genesisRLP?: string;
  pre: Record<string, TestAccount>;
  postState?: Record<string, TestAccount>;
  postStateHash?: string;
  lastblockhash: string;
  blocks: TestBlock[];
  sealEngine?: string;
  config?: { network?: string; chainid?: string; blobSchedule?: Record<string, Record<string, string>> };
}

/** A test with where it comes from: its bundle, its file and its name in the file. */
export interface TestCase {
  bundle: string;
  file: string;
  name: string;
  test: BlockchainTest;
}

/** The bundles, by name (the file name without `.json.br`). */
export function bundleNames(): string[] {
  return readdirSync(BUNDLES_DIR)
    .filter((f) => f.endsWith('.json.br'))
    .map((f) => f.slice(0, -'.json.br'.length))
    .sort();
}

/** Every test of a bundle, file by file, in the order of their names. */
export function* bundleCases(bundle: string): Generator<TestCase> {
  const files = JSON.parse(brotliDecompressSync(readFileSync(join(BUNDLES_DIR, `${bundle}.json.br`))).toString('utf8')) as Record<string, string>;
  for (const file of Object.keys(files).sort()) {
    const tests = JSON.parse(files[file]) as Record<string, BlockchainTest>;
    for (const name of Object.keys(tests).sort()) yield { bundle, file, name, test: tests[name] };
  }
}
