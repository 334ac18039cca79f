import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/chains.js';
import { postEach, tally } from '../helpers/drainClients.js';
import { until } from '../helpers/until.js';

/**
 * `npm start` stopped as a terminal's Ctrl-C, systemd's default KillMode=control-group or
 * `kill -- -PGID` stop it: SIGTERM to the whole process group — npm, scripts/start.mjs and the
 * server — so the server gets it twice, from the group and from its parent passing it on. Under
 * load, every request already received is answered, and it exits 0.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const tmp = tempDir('tracenode-npm-start-');
afterAll(() => tmp.cleanup());

/** An eth_call that counts 20,000 down in a loop on the demo chain (a state override): work still running when the signal comes. */
const heavyCall = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'eth_call',
    params: [
      { to: '0x00000000000000000000000000000000000ca11e', gas: '0x3b9aca00' },
      'latest',
      { '0x00000000000000000000000000000000000ca11e': { code: '0x62004e205b6001900380600457602a60005260206000f3' } },
    ],
  });

describe('npm start, stopped by its process group under load', () => {
  it('answers all 30 requests it had received, drains and closes', async () => {
    const child: ChildProcess = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      detached: true,
      env: {
        ...process.env,
        TRACENODE_DATADIR: join(tmp.dir, 'data'),
        TRACENODE_STARKNET_DATADIR: join(tmp.dir, 'data-starknet'),
        TRACENODE_PORT: '0',
        TRACENODE_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.once('close', (code, signal) => res({ code, signal })));
    try {
      const base = await until(
        'npm start serves',
        () => /JSON-RPC\s+http:\/\/127\.0\.0\.1:(\d+)\/v3\//.exec(out)?.[1],
        (port) => port !== undefined,
        240_000,
        () => out.slice(-2000),
      );
      const sent = await postEach(
        Number(base),
        '/v3/tracenode-dev-key',
        Array.from({ length: 30 }, (_, i) => heavyCall(i)),
      );
      await sent.written;
      process.kill(-child.pid!, 'SIGTERM');
      const counts = tally(await sent.outcomes);
      expect(counts).toEqual({ '200 result': 30 });
      // npm itself ends by the group's SIGTERM; the server drained, closed and exited 0 before that reached start.mjs's exit.
      const end = await exited;
      expect(end.code === 0 || end.signal === 'SIGTERM').toBe(true);
      expect(out).toMatch(/serve: drained in \d+ ms: 30 answered, 0 cut at the grace period/);
      expect(out).toContain('serve: closed');
      expect(out).not.toContain('exiting now');
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
  }, 300_000);
});
