import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex } from '@ethereumjs/util';
import { afterAll, describe, expect, it } from 'vitest';
import { openChain } from '../../src/chain/open.js';
import { createStateManager } from '../../src/state/stateManager.js';
import { TrieDB } from '../../src/state/trieDb.js';
import { FIXTURES, tempDir } from '../helpers/chains.js';
import { runCli, spawnCli } from '../helpers/cli.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const dir = join(FIXTURES, 'execution-apis');
const summary = readFileSync(join(dir, 'chain-summary.ndjson'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { number: number; hash: string });

describe('import: crash safety', () => {
  it('SIGKILL mid-import leaves a complete head; a second import finishes it', async () => {
    const datadir = join(tmp.dir, 'crash');
    const init = await runCli(['init', '--datadir', datadir, '--genesis', join(dir, 'genesis.json')]);
    expect(init.code).toBe(0);

    // Kill the import as soon as it reports progress: some blocks are written, not all.
    const child = spawnCli(['import', '--datadir', datadir, join(dir, 'chain.rlp')], { TRACENODE_PROGRESS_MS: '200' });
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (d: Buffer) => {
        if (/import: block (\d+)/.exec(d.toString())) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('close', () => reject(new Error('import finished before it could be killed')));
    });
    await new Promise((r) => child.on('close', r));

    const chain = await openChain(datadir);
    try {
      const head = (await chain.store.head())!;
      expect(head.number).toBeGreaterThan(0n);
      expect(head.number).toBeLessThan(54n);
      expect(bytesToHex(head.hash)).toBe(summary[Number(head.number) - 1].hash);
      // The head's state is complete: its root opens and an account of the genesis alloc reads.
      const header = (await chain.store.headerByHash(head.hash))!;
      const sm = createStateManager(chain.common, new TrieDB(chain.level), header.stateRoot);
      expect(await sm.getStateRoot()).toEqual(header.stateRoot);
      const genesis = JSON.parse(readFileSync(join(dir, 'genesis.json'), 'utf8'));
      const anAddress = Object.keys(genesis.alloc)[0];
      const { createAddressFromString } = await import('@ethereumjs/util');
      await expect(sm.getAccount(createAddressFromString(anAddress.startsWith('0x') ? anAddress : `0x${anAddress}`))).resolves.toBeDefined();
    } finally {
      await chain.close();
    }

    const again = await runCli(['import', '--datadir', datadir, join(dir, 'chain.rlp')]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`import: head is block 54 ${summary[53].hash}`);
    expect(again.stderr).toMatch(/import: done, \d+ blocks imported, \d+ already present/);
  });
});
