import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createLogger } from '../log/logger.js';
import { buildServer } from '../rpc/server.js';
import { type OpenedNetwork, openNetwork } from './networks.js';
import { DATADIR, type FlagSpec, helpText, parseFlags, UsageError } from './options.js';

const HOST: FlagSpec = { name: 'host', env: 'TRACENODE_HOST', arg: 'ADDR', help: 'address to listen on', default: '127.0.0.1' };
const PORT: FlagSpec = { name: 'port', env: 'TRACENODE_PORT', arg: 'PORT', help: 'TCP port', default: '8545' };
const API_KEYS: FlagSpec = { name: 'api-keys', env: 'TRACENODE_API_KEYS', arg: 'K1,K2', help: 'comma-separated API keys accepted in /v3/<key>' };
const KEYS_FILE: FlagSpec = { name: 'keys-file', env: 'TRACENODE_KEYS_FILE', arg: 'FILE', help: 'file with one API key per line (# comments)' };
const NETWORKS: FlagSpec = {
  name: 'networks',
  env: 'TRACENODE_NETWORKS',
  arg: 'N=DIR,…',
  help: 'more networks, routed by the first label of the Host name (e.g. starknet-mainnet=./data-starknet)',
};
const LOG_LEVEL: FlagSpec = { name: 'log-level', env: 'TRACENODE_LOG_LEVEL', arg: 'LEVEL', help: 'pino log level', default: 'info' };
const FLAGS = [DATADIR, NETWORKS, HOST, PORT, API_KEYS, KEYS_FILE, LOG_LEVEL];
export const SERVE_HELP = helpText(
  'tracenode serve --datadir DIR [--networks N=DIR,…] [--host 127.0.0.1] [--port 8545] [--api-keys k1,k2 | --keys-file F]',
  'Serves imported chains read-only over JSON-RPC 2.0: POST /v3/<key> and WebSocket /ws/v3/<key>;\n' +
    'GET /health reports the head block. --datadir is the "mainnet" network; --networks adds more\n' +
    "(Ethereum or Starknet datadirs, detected), chosen by the Host name's first label\n" +
    '(mainnet.localhost, starknet-mainnet.localhost); the first network also answers any other Host.',
  FLAGS,
);

/** The package version, for `web3_clientVersion`. */
export function clientVersion(): string {
  const pkg = createRequire(import.meta.url)('../../package.json') as { version: string };
  return `tracenode/v${pkg.version}/${process.platform}-${process.arch}/node${process.versions.node}`;
}

/** Reads API keys from `--api-keys` and/or `--keys-file`; at least one is required. */
export function loadApiKeys(list: string | undefined, file: string | undefined): string[] {
  const keys = new Set<string>();
  for (const k of (list ?? '').split(',')) if (k.trim()) keys.add(k.trim());
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`cannot read keys file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    for (const line of text.split('\n')) {
      const k = line.replace(/#.*/, '').trim();
      if (k) keys.add(k);
    }
  }
  if (keys.size === 0) throw new UsageError('no API key configured: pass --api-keys or --keys-file (or TRACENODE_API_KEYS)');
  for (const k of keys) if (!/^[A-Za-z0-9_-]{1,128}$/.test(k)) throw new UsageError('API keys may use only letters, digits, "_" and "-" (at most 128)');
  return [...keys];
}

/** Parses `name=dir,name=dir`; names are DNS labels. */
export function parseNetworks(datadir: string | undefined, list: string | undefined): Array<{ name: string; dir: string }> {
  const out: Array<{ name: string; dir: string }> = datadir !== undefined ? [{ name: 'mainnet', dir: datadir }] : [];
  for (const item of (list ?? '').split(',')) {
    if (!item.trim()) continue;
    const eq = item.indexOf('=');
    const name = item.slice(0, eq).trim().toLowerCase();
    const dir = item.slice(eq + 1).trim();
    if (eq < 1 || !dir || !/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(name))
      throw new UsageError(`invalid --networks entry "${item}" (want name=dir, name a DNS label)`);
    if (out.some((n) => n.name === name)) throw new UsageError(`network ${name} given twice`);
    out.push({ name, dir });
  }
  if (out.length === 0) throw new UsageError('missing --datadir (or TRACENODE_DATADIR) or --networks');
  return out;
}

/** `tracenode serve`: runs until SIGINT/SIGTERM, then closes connections and the databases. */
export async function runServe(argv: string[]): Promise<number> {
  const { values, help } = parseFlags(argv, FLAGS);
  if (help) {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  const specs = parseNetworks(values.datadir, values.networks);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`invalid --port ${values.port}`);
  const host = values.host as string;
  const apiKeys = loadApiKeys(values['api-keys'], values['keys-file']);
  const logger = createLogger({ level: values['log-level'] });
  const opened: OpenedNetwork[] = [];
  try {
    for (const spec of specs) opened.push(await openNetwork(spec.name, spec.dir, clientVersion()));
  } catch (err) {
    await Promise.all(opened.map((n) => n.close()));
    throw err;
  }
  const app = await buildServer({ networks: opened.map((n) => n.handle), apiKeys, logger });
  if (!['127.0.0.1', 'localhost', '::1'].includes(host)) {
    logger.warn({ host }, 'listening on a non-loopback address: the node is reachable from other machines');
  }
  await app.listen({ host, port });
  const shown = host.includes(':') ? `[${host}]` : host;
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  for (const [i, n] of opened.entries()) {
    const health = await n.handle.health();
    const head = (health as { head?: { number: number } }).head;
    process.stdout.write(`serve: network ${n.handle.name} (${n.kind}${i === 0 ? ', default' : ''}) at block ${head?.number ?? '-'}\n`);
  }
  process.stdout.write(
    `serve: JSON-RPC  http://${shown}:${actualPort}/v3/<API_KEY>\n` +
      `serve: WebSocket ws://${shown}:${actualPort}/ws/v3/<API_KEY>\n` +
      (opened.length > 1 ? `serve: other networks by Host name, e.g. http://${opened[1].handle.name}.localhost:${actualPort}/v3/<API_KEY>\n` : ''),
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  process.stdout.write('serve: shutting down\n');
  await app.close();
  await Promise.all(opened.map((n) => n.close()));
  return 0;
}
