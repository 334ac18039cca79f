import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../helpers/chains.js';
import { runCli, startServeCli } from '../helpers/cli.js';

/**
 * `server.logBufferBytes` beyond the log stream's default largest write (16 KiB): the node starts,
 * holds its access lines in the buffer, and writes every one of them by the time it exits.
 */

const tmp = tempDir('tracenode-logbuf-');
afterAll(() => tmp.cleanup());

it('serves with a 64 KiB log buffer and writes every access line by exit', async () => {
  const datadir = join(tmp.dir, 'data');
  const init = await runCli(['init', '--datadir', datadir, '--genesis', join(FIXTURES, 'execution-apis', 'genesis.json')]);
  expect(init.code).toBe(0);
  const s = await startServeCli(['--datadir', datadir, '--port', '0', '--api-keys', 'k', '--log-level', 'info', '--log-buffer-bytes', '65536']);
  for (let id = 1; id <= 3; id++) {
    const res = await fetch(`${s.base}/v3/k`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] }),
    });
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id, result: '0xc72dd9d5e883e' });
  }
  s.child.kill('SIGTERM');
  expect(await s.exited).toBe(0);
  const lines = s
    .output()
    .split('\n')
    .filter((l) => l.includes('"msg":"request"') && l.includes('eth_chainId'));
  expect(lines).toHaveLength(3);
}, 60_000);
