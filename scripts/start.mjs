#!/usr/bin/env node
// `npm start`: the embedded default. Builds if needed, imports the bundled Ethereum demo chain into
// ./data and the Starknet demo blocks into ./data-starknet (resuming an interrupted import; blocks
// already there are skipped), then serves both on 127.0.0.1:8545: Ethereum as the default network
// (and mainnet.localhost), Starknet on starknet-mainnet.localhost.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
const datadir = resolve(env.TRACENODE_DATADIR ?? join(root, 'data'));
const demo = join(root, 'fixtures', 'demo');
const starknetDatadir = resolve(env.TRACENODE_STARKNET_DATADIR ?? join(root, 'data-starknet'));
const starknetDemo = join(root, 'fixtures', 'starknet', 'mainnet-blocks.ndjson');
/** The development key `npm start` accepts unless TRACENODE_API_KEYS / TRACENODE_KEYS_FILE say otherwise. */
const DEV_KEY = 'tracenode-dev-key';
const cli = join(root, 'dist', 'cli.js');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// 1. Build when dist is missing or older than the sources (a container ships dist without src).
const src = join(root, 'src');
if (!existsSync(cli) || (existsSync(src) && newestMtime(src) > statSync(cli).mtimeMs)) {
  console.log('start: building…');
  run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build', '--silent']);
}

// 2. Initialise and import the demo chain (import skips blocks already present).
if (!existsSync(join(datadir, 'chaindata'))) {
  console.log(`start: initialising ${datadir} with the demo chain`);
  run(process.execPath, [cli, 'init', '--datadir', datadir, '--genesis', join(demo, 'genesis.json')]);
}
run(process.execPath, [cli, 'import', '--datadir', datadir, join(demo, 'chain.rlp')]);
run(process.execPath, [cli, 'import-starknet', '--datadir', starknetDatadir, '--chain-id', 'SN_MAIN', starknetDemo]);

// 3. Serve both: Ethereum as the default network, Starknet on starknet-mainnet.localhost.
const keys = env.TRACENODE_API_KEYS || env.TRACENODE_KEYS_FILE ? [] : ['--api-keys', DEV_KEY];
if (keys.length > 0) console.log(`start: development API key: ${DEV_KEY}`);
const host = env.TRACENODE_HOST ?? '127.0.0.1';
const port = env.TRACENODE_PORT ?? '8545';
const shown = host === '0.0.0.0' ? '127.0.0.1' : host;
console.log(
  `start: try  curl -s -X POST -H 'Content-Type: application/json' --data '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' http://${shown}:${port}/v3/${keys.length ? DEV_KEY : '<API_KEY>'}`,
);
const child = (await import('node:child_process')).spawn(
  process.execPath,
  [cli, 'serve', '--datadir', datadir, '--networks', `starknet-mainnet=${starknetDatadir}`, ...keys],
  { stdio: 'inherit', cwd: root },
);
// Ctrl-C reaches the whole process group, the server included: passing SIGINT on would be its
// second signal, which makes it exit at once instead of draining. SIGTERM (docker stop, a
// supervisor) reaches this process only, and is passed on.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
