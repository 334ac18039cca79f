import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex } from '@ethereumjs/util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type BuiltChain, buildAnvilChain } from '../../scripts/anvil/buildAnvilChain.js';
import { openChain } from '../../src/chain/open.js';
import { initDatadir } from '../../src/import/init.js';
import { StateReader } from '../../src/state/stateReader.js';
import { rawResult } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { killAfter, runCli } from '../helpers/cli.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { testConfig } from '../helpers/testConfig.js';

/**
 * SIGKILL during catch-up (issue 16): `tracenode follow` from anvil is killed at a different moment
 * each round. After every kill the datadir opens, its head is a block anvil has at that height, and
 * the head's whole state trie is readable (each block's write is one batch); the next run resumes,
 * and the last one ends at anvil's head.
 */

const describe = describeWithFoundry(['anvil'], 'SIGKILL while following');
const tmp = tempDir('tracenode-follow-crash-');
let built: BuiltChain;
const datadir = join(tmp.dir, 'data');

beforeAll(async () => {
  built = await buildAnvilChain({ outDir: join(tmp.dir, 'anvil'), scenario: 'traces', keepRunning: true });
  await initDatadir(datadir, readFileSync(built.genesisPath, 'utf8'), testConfig());
}, 180_000);

afterAll(async () => {
  await built?.anvil?.stop();
  tmp.cleanup();
});

/** The head of the datadir is anvil's block at that height, and every node of its state trie is there. */
async function consistent(): Promise<bigint> {
  const config = testConfig();
  const chain = await openChain(datadir, config.caches);
  try {
    const head = (await chain.store.head())!;
    const theirs = (await rawResult(built.anvil!.url, 'eth_getBlockByNumber', [`0x${head.number.toString(16)}`, false])) as { hash: string };
    expect(bytesToHex(head.hash)).toBe(theirs.hash);
    const header = (await chain.store.headerByHash(head.hash))!;
    const state = new StateReader(chain.level, config.caches);
    let accounts = 0;
    await state.reads.trieAt(header.stateRoot).walkAllValueNodes(async () => {
      accounts++;
    });
    expect(accounts).toBeGreaterThan(0);
    return head.number;
  } finally {
    await chain.close();
  }
}

describe('SIGKILL while following', () => {
  it('killed at six moments of catch-up (0.2–1.2 s after blocks start coming): consistent each time; the last run reaches anvil’s head', async () => {
    const heads: bigint[] = [];
    for (const afterMs of [200, 400, 600, 800, 1000, 1200]) {
      // Blocks start coming when it says how it fetches them (anvil: rebuilt from JSON).
      await killAfter(['follow', '--datadir', datadir, '--follow', built.anvil!.url, '--follow.batch-blocks', '4'], 'debug_getRawBlock', afterMs);
      heads.push(await consistent());
    }
    const done = await runCli(['follow', '--datadir', datadir, '--follow', built.anvil!.url]);
    expect(done.code).toBe(0);
    const target = BigInt((await rawResult(built.anvil!.url, 'eth_blockNumber', [])) as string);
    expect(await consistent()).toBe(target);
    // The kills landed at different heights, some mid-catch-up, never past anvil's head.
    expect(heads.every((h) => h <= target)).toBe(true);
    expect(new Set(heads).size).toBeGreaterThan(1);
    expect(heads.some((h) => h > 0n && h < target)).toBe(true);
  }, 120_000);
});
