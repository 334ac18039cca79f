import { join } from 'node:path';
import { hexToBytes } from '@ethereumjs/util';
import { afterAll, describe, expect, it } from 'vitest';
import { readMergeBlock } from '../../src/chain/mergeByDifficulty.js';
import { openChain } from '../../src/chain/open.js';
import { importBlocks } from '../../src/import/importChain.js';
import { initDatadir } from '../../src/import/init.js';
import { StateReader } from '../../src/state/stateReader.js';
import { executionWitness } from '../../src/tracing/witness.js';
import { genesisText } from '../conformance/blockchainTests/convert.js';
import { bundleCases } from '../conformance/blockchainTests/fixtures.js';
import { tempDir } from '../helpers/chains.js';
import { testConfig } from '../helpers/testConfig.js';

/**
 * A chain that merges by total difficulty (ethereum/tests `powToPosTest_ArrowGlacierToParisAtDiffC0000`:
 * five proof-of-work blocks of 0x20000 bring the total difficulty to 0xC0000, the terminal one):
 * the merge block found at import is recorded, and a later open runs it under the merge's rules.
 */
const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('a merge by total difficulty', () => {
  it('is found at import, recorded, and kept by the next open: replays of the merge block run under proof of stake', async () => {
    const c = [...bundleCases('legacy-cancun-transition')].find((t) => t.name === 'powToPosTest_ArrowGlacierToParisAtDiffC0000')!;
    const config = testConfig();
    const datadir = join(tmp.dir, 'data');
    await initDatadir(datadir, genesisText(c.test), config);
    let chain = await openChain(datadir, config.caches);
    await importBlocks(
      chain,
      c.test.blocks.map((b) => hexToBytes(b.rlp as `0x${string}`)),
      config.import,
    );
    expect((await chain.store.head())!.number).toBe(BigInt(c.test.blocks.length));
    expect(await readMergeBlock(chain.level)).toBe(6n);
    await chain.close();

    chain = await openChain(datadir, config.caches);
    try {
      const at = (n: bigint) => {
        const common = chain.common.copy();
        common.setHardforkBy({ blockNumber: n, timestamp: 0n });
        return common.hardfork();
      };
      expect([at(5n), at(6n)]).toEqual(['arrowGlacier', 'mergeNetsplitBlock']);
      // The witness generator executes each block again and checks its state root: the merge block
      // and the next verify only without proof of work's block reward.
      const state = new StateReader(chain.level, config.caches);
      for (const n of [5n, 6n, 7n]) {
        const block = (await chain.store.blockByNumber(n))!;
        await expect(executionWitness(chain, state.db, block, { timeoutMs: 10_000, maxResultBytes: 1 << 24 })).resolves.toBeDefined();
      }
    } finally {
      await chain.close();
    }
  });
});
