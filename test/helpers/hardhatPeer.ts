import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe } from 'vitest';
import { startService } from '../../scripts/lib/serviceProcess.js';

/**
 * Hardhat's own node (`npx hardhat node`, the devDependency `hardhat`, pinned to the last 2.x line
 * because Hardhat 3 needs Node 22) as an upstream peer, run as users run it: Hardhat's defaults
 * (hardfork osaka, chain id 31337, automine, the 20 accounts of the `test test … junk` mnemonic
 * with 10000 ETH each) plus `allowBlocksWithSameTimestamp: true`, which lets automined blocks share
 * their parent's timestamp.
 *
 * It is started from this repository (Hardhat refuses to run from a directory that does not
 * resolve it locally, error HH12) with `--config` pointing into the temporary directory, and with
 * its global directories (telemetry consent, analytics id, `vars`) moved there too: no telemetry
 * consent means no analytics and no error reports, and with its output piped Hardhat neither asks
 * for consent nor fetches its banner, so it never reaches the network. It answers in about 0.7 s.
 *
 * It has no genesis file: tracenode takes its genesis from it (`tracenode init --from-node`,
 * src/follow/nodeGenesis.ts; test/follow/hardhatGenesis.test.ts and devNodes.test.ts).
 */

const REPO = resolve(import.meta.dirname, '../..');
/** Hardhat's CLI, the target of node_modules/.bin/hardhat. */
export const HARDHAT_CLI = resolve(REPO, 'node_modules/hardhat/internal/cli/bootstrap.js');
/** Where the tests must run (CI's platform); elsewhere a missing Hardhat skips them. */
export const HARDHAT_PLATFORM = process.platform === 'linux' && process.arch === 'x64';

/** The hardhat network config the node runs with: the defaults and equal timestamps allowed. */
const CONFIG = `// Written by tracenode's test/helpers/hardhatPeer.ts: Hardhat's defaults, except that automined
// blocks may share their parent's timestamp.
module.exports = { networks: { hardhat: { allowBlocksWithSameTimestamp: true } } };
`;

/** Hardhat's default hardfork (its hardhat network's `hardfork` when the config names none). */
export function hardhatDefaultHardfork(): string {
  const require = createRequire(import.meta.url);
  const { defaultHardhatNetworkParams } = require('hardhat/internal/core/config/default-config.js') as {
    defaultHardhatNetworkParams: { hardfork: string };
  };
  return defaultHardhatNetworkParams.hardfork;
}

/** A running `hardhat node`. */
export interface HardhatNode {
  /** Its JSON-RPC URL (HTTP). */
  url: string;
  /** The same server's WebSocket URL. */
  wsUrl: string;
  /** The hardfork it runs (Hardhat's default). */
  hardfork: string;
  /** One JSON-RPC request; an error answer throws. */
  call(method: string, params?: unknown[]): Promise<unknown>;
  /** The last ~10 kB of its stdout and stderr (it logs every method called). */
  output(): string;
  /** Stops it (SIGTERM, SIGKILL after 3 s). */
  stop(): Promise<void>;
}

async function rpc(url: string, method: string, params: unknown[], timeoutMs = 10_000): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const answer = (await res.json()) as { result?: unknown; error?: unknown };
  if (answer.error !== undefined) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

/**
 * Writes `<dir>/hardhat.config.cjs`, starts `hardhat node` on 127.0.0.1 and a free port (three
 * ports are tried) and waits until it answers eth_chainId (`scripts/lib/serviceProcess.ts`).
 * stop() ends it; so does the exit of this process.
 */
export async function startHardhatNode(dir: string, { timeoutMs = 20_000 } = {}): Promise<HardhatNode> {
  mkdirSync(dir, { recursive: true });
  const configPath = join(dir, 'hardhat.config.cjs');
  writeFileSync(configPath, CONFIG);
  const home = join(dir, 'hardhat-home');
  const env = {
    ...process.env,
    HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CACHE_HOME: join(home, 'cache'),
  };
  const node = await startService(
    'hardhat node',
    (port) =>
      spawn(process.execPath, [HARDHAT_CLI, '--config', configPath, 'node', '--hostname', '127.0.0.1', '--port', String(port)], {
        cwd: REPO,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    (url) => rpc(url, 'eth_chainId', [], 1000),
    timeoutMs,
  );
  const call = (method: string, params: unknown[] = []) => rpc(node.url, method, params);
  return { url: node.url, wsUrl: `ws://127.0.0.1:${node.port}`, hardfork: hardhatDefaultHardfork(), call, output: node.output, stop: node.stop };
}

const announced = new Set<string>();

/** `describe`, or `describe.skip` when Hardhat is not installed off linux x64 (there it must be: a missing one throws). */
export function describeWithHardhat(who: string): typeof describe {
  if (existsSync(HARDHAT_CLI)) return describe;
  if (HARDHAT_PLATFORM) throw new Error(`${who}: hardhat is not installed on linux x64, where these tests must run (run npm ci)`);
  if (!announced.has(who)) {
    announced.add(who);
    console.log(`skipped: ${who} needs the devDependency hardhat, which is not installed (this is ${process.platform} ${process.arch})`);
  }
  return describe.skip as typeof describe;
}
