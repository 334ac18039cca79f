import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAnvil } from '../../scripts/anvil/anvilProcess.js';
import { rawCall, rawResult } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { type ServeCli, startServeCli } from '../helpers/cli.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { until } from '../helpers/until.js';

/**
 * The README's first command beside a young development node: anvil under 64 blocks calls block 0
 * its `finalized` block. `serve --follow … --from finalized` must not become an "archive from block
 * 0" whose state nothing proves (anvil's block 0 names the empty trie's root): it follows the
 * node from its genesis, as `init --from-node` does, and every balance is anvil's. The same
 * command again goes on with the datadir.
 */

describeWithFoundry(['anvil'], '--from finalized beside a young anvil')('--from finalized when the node’s finalized block is block 0', () => {
  const tmp = tempDir('tracenode-from-genesis-');
  const datadir = join(tmp.dir, 'data');
  let anvil: Awaited<ReturnType<typeof startAnvil>>;
  let serve: ServeCli | undefined;
  const KEY = 'k1';

  beforeAll(async () => {
    anvil = await startAnvil([]);
    for (let i = 0; i < 3; i++) await rawResult(anvil.url, 'evm_mine', []);
  }, 30_000);
  afterAll(async () => {
    serve?.child.kill('SIGKILL');
    await anvil?.stop();
    tmp.cleanup();
  });

  const start = () =>
    startServeCli(['--datadir', datadir, '--port', '0', '--api-keys', KEY, '--follow', anvil.url, '--from', 'finalized', '--follow.poll-interval-ms', '50']);

  it('follows from the genesis, and answers every dev account’s balance as anvil does, at block 0 and at the head', async () => {
    const finalized = (await rawResult(anvil.url, 'eth_getBlockByNumber', ['finalized', false])) as { number: string };
    expect(finalized.number).toBe('0x0');
    serve = await start();
    expect(serve.output()).toContain("the followed node's finalized block is block 0: following it from its genesis instead");
    const url = `${serve.base}/v3/${KEY}`;
    await until(
      'caught up',
      async () => (await rawCall(url, 'eth_blockNumber', [])).result,
      (n) => n === '0x3',
    );
    const accounts = (await rawResult(anvil.url, 'eth_accounts', [])) as string[];
    expect(accounts.length).toBeGreaterThan(0);
    for (const account of accounts) {
      for (const block of ['0x0', 'latest']) {
        const want = await rawResult(anvil.url, 'eth_getBalance', [account, block]);
        expect(BigInt(want as string)).toBeGreaterThan(0n);
        expect((await rawCall(url, 'eth_getBalance', [account, block])).result).toBe(want);
      }
    }
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
  }, 120_000);

  it('the same command again goes on with the datadir', async () => {
    await rawResult(anvil.url, 'evm_mine', []);
    serve = await start();
    const url = `${serve.base}/v3/${KEY}`;
    await until(
      'caught up',
      async () => (await rawCall(url, 'eth_blockNumber', [])).result,
      (n) => n === '0x4',
    );
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
  }, 120_000);
});
