import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChain } from '../../src/chain/open.js';
import { importBlocks } from '../../src/import/importChain.js';
import { initDatadir } from '../../src/import/init.js';
import { FIXTURES, tempDir } from '../helpers/chains.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { testConfig } from '../helpers/testConfig.js';

/**
 * What a new user meets first: `serve` on a port something else holds (anvil on 8545 is the
 * commonest set-up) exits at once, non-zero, naming the port and what to try; a usage error is one
 * line, not the whole help after it.
 */

const tmp = tempDir();
const datadir = join(tmp.dir, 'data');

beforeAll(async () => {
  const config = testConfig();
  const dir = join(FIXTURES, 'uncle-chains', 'twoUncle_Berlin');
  await initDatadir(datadir, readFileSync(join(dir, 'genesis.json'), 'utf8'), config);
  const chain = await openChain(datadir, config.caches);
  await importBlocks(chain, [readFileSync(join(dir, 'chain.rlp'))], config.import);
  await chain.close();
}, 60_000);
afterAll(() => tmp.cleanup());

describe('serve on a port in use', () => {
  it('exits 1 at once, naming the port and --port', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      // Exits by itself (it used to listen nowhere and run on until the test's timeout).
      const { code, stderr } = await runCli(['serve', '--datadir', datadir, '--port', String(port), '--api-keys', 'k1']);
      expect(code).toBe(1);
      expect(stderr).toContain(`tracenode serve: cannot listen on 127.0.0.1:${port}: the port is in use`);
      expect(stderr).toContain('choose another port with --port');
    } finally {
      holder.close();
    }
  }, 60_000);
});

describe('a usage error', () => {
  it('is one line and a pointer to --help, not the whole help', async () => {
    const { code, stderr } = await runCli(['serve', '--datadir', datadir, '--from', 'finalized']);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([
      'tracenode serve: --from starts an archive from a block of the followed node: give --follow URL',
      '(`tracenode serve --help` lists the options)',
    ]);
  }, 60_000);
});

describe('a reader that goes away', () => {
  it('`tracenode init --help | head -1`: the help written to a closed pipe ends with 0 and nothing on stderr, not an unhandled EPIPE', async () => {
    const child = spawnCli(['init', '--help']);
    // The read end closes before the CLI has started (tsx takes most of a second): its first write meets EPIPE.
    child.stdout!.destroy();
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});
