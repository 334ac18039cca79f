import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type EthereumChain, openChain } from '../../src/chain/open.js';
import { importBlocks } from '../../src/import/importChain.js';
import { initDatadir } from '../../src/import/init.js';
import { testConfig } from './testConfig.js';

/** This repository's own fixtures. */
export const FIXTURES = resolve(import.meta.dirname, '../../fixtures');

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = 'tracenode-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Initialises a datadir from `<dir>/genesis.json`, imports `<dir>/chain.rlp`, and returns the
 * opened chain (its caches and the import sized by `config`, the defaults unless given). Used by
 * every test that needs a real imported chain.
 */
export async function importFixtureChain(fixtureDir: string, datadir: string, config = testConfig()): Promise<EthereumChain> {
  await initDatadir(datadir, readFileSync(join(fixtureDir, 'genesis.json'), 'utf8'), config);
  const chain = await openChain(datadir, config.caches);
  await importBlocks(chain, [readFileSync(join(fixtureDir, 'chain.rlp'))], config.import);
  return chain;
}
