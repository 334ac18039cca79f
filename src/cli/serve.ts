import { createRequire } from 'node:module';
import { SETTINGS } from '../config/settings.js';
import { createLogger } from '../log/logger.js';
import { type KeyPolicy, KeyRegistry, KeysFileError, openKeys, readKeysFile } from '../pipeline/keys.js';
import { watchKeysFile } from '../pipeline/keysWatcher.js';
import { startMetricsServer } from '../transport/metricsRoutes.js';
import { buildServer } from '../transport/server.js';
import { CHECKPOINT_HASH, ensureArchiveFrom, FROM } from './archiveFrom.js';
import { type Network, openNetwork } from './networks.js';
import { type CommandSpec, commandHelp, parseCommand, UsageError } from './options.js';
import { firstStopSignal } from './shutdown.js';

/** `serve` reads every setting, so it takes every setting's flag; and where an empty datadir that follows a node starts. */
const SPEC: CommandSpec = { settings: Object.keys(SETTINGS), flags: [FROM, CHECKPOINT_HASH] };
export const SERVE_HELP = commandHelp(
  'tracenode serve --datadir DIR [--networks N=DIR,…] [--host 127.0.0.1] [--port 8545] [--api-keys k1,k2 | --keys-file F]',
  'Serves imported chains read-only over JSON-RPC 2.0: POST /v3/<key> and WebSocket /ws/v3/<key>;\n' +
    'GET /health reports the head block. --datadir is the "mainnet" network; --networks adds more\n' +
    "(Ethereum or Starknet datadirs, detected), chosen by the Host name's first label\n" +
    '(mainnet.localhost, starknet-mainnet.localhost); the first network also answers any other Host.\n' +
    'Settings come from --config FILE (YAML or JSON), TRACENODE_* variables and flags, each over the one before.',
  SPEC,
);

/** The package version, for `web3_clientVersion`. */
export function clientVersion(): string {
  const pkg = createRequire(import.meta.url)('../../package.json') as { version: string };
  return `tracenode/v${pkg.version}/${process.platform}-${process.arch}/node${process.versions.node}`;
}

/**
 * The keys of `--api-keys` (no policies) and `--keys-file` (one key per line, or YAML/JSON with
 * policies); at least one is required.
 */
export function loadKeys(list: string | undefined, file: string | undefined): { listed: KeyPolicy[]; policies: KeyPolicy[] } {
  const names = (list ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
  let listed: KeyPolicy[];
  let fromFile: KeyPolicy[] = [];
  try {
    listed = openKeys([...new Set(names)]);
    if (file !== undefined) fromFile = readKeysFile(file);
  } catch (err) {
    if (err instanceof KeysFileError) throw new UsageError(err.message);
    throw err;
  }
  const policies = [...listed, ...fromFile.filter((p) => !names.includes(p.key))];
  if (policies.length === 0) throw new UsageError('no API key configured: pass --api-keys or --keys-file (or TRACENODE_API_KEYS)');
  return { listed, policies };
}

/**
 * The upstream each network follows: `--follow URL` is the first network's; `name=URL,…` names
 * them. Ethereum and Starknet networks alike.
 */
export function parseFollow(value: string | undefined, specs: ReadonlyArray<{ name: string }>): Map<string, string> {
  const out = new Map<string, string>();
  if (value === undefined || value.trim() === '') return out;
  const isUrl = (v: string) => /^(https?|wss?):\/\//i.test(v);
  if (isUrl(value.trim())) {
    out.set(specs[0].name, value.trim());
    return out;
  }
  for (const item of value.split(',')) {
    if (!item.trim()) continue;
    const eq = item.indexOf('=');
    const name = item.slice(0, eq).trim().toLowerCase();
    const url = item.slice(eq + 1).trim();
    if (eq < 1 || !isUrl(url)) throw new UsageError(`invalid --follow entry "${item}" (want a URL, or name=URL with an http(s):// or ws(s):// URL)`);
    if (!specs.some((s) => s.name === name)) throw new UsageError(`--follow names network ${name}, which is not served`);
    out.set(name, url);
  }
  return out;
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

/**
 * `--from`: every network that follows a node and whose datadir is empty becomes an archive from
 * that block of its node; one already made so must agree with it (`archiveFrom.ts`).
 */
async function startArchives(
  specs: ReadonlyArray<{ name: string; dir: string }>,
  follow: Map<string, string>,
  values: Record<string, string | undefined>,
  config: Parameters<typeof ensureArchiveFrom>[4],
): Promise<void> {
  const from = values[FROM.name];
  const checkpoint = values[CHECKPOINT_HASH.name];
  if (from === undefined) {
    if (checkpoint !== undefined) throw new UsageError('--checkpoint-hash pins the block of --from');
    return;
  }
  if (follow.size === 0) throw new UsageError('--from starts an archive from a block of the followed node: give --follow URL');
  for (const spec of specs) {
    const url = follow.get(spec.name);
    if (url !== undefined) await ensureArchiveFrom(spec.dir, url, from, checkpoint, config, (line) => process.stdout.write(`serve: ${line}\n`));
  }
}

/**
 * `tracenode serve`: runs until SIGINT/SIGTERM, then drains (every request received is answered,
 * `transport/drain.ts`) and closes the follower, the EVM workers and the databases; exits 0.
 */
export async function runServe(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, SPEC);
  if (parsed.help) {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  const { config, values } = parsed;
  const { host, port } = config.server;
  const specs = parseNetworks(config.server.datadir, config.server.networks);
  const follow = parseFollow(config.server.follow, specs);
  await startArchives(specs, follow, values, config);
  const keys = loadKeys(config.server.apiKeys, config.server.keysFile);
  const registry = new KeyRegistry(keys.policies);
  const logger = createLogger({
    level: config.server.logLevel,
    buffer: { bytes: config.server.logBufferBytes, flushMs: config.server.logFlushMs, maxQueuedBytes: config.server.logMaxQueuedBytes },
  });
  const opened: Network[] = [];
  try {
    for (const spec of specs) opened.push(await openNetwork(spec.name, spec.dir, clientVersion(), config, logger, follow.get(spec.name)));
  } catch (err) {
    await Promise.all(opened.map((n) => n.close()));
    throw err;
  }
  const separateMetrics = config.server.metricsPort !== undefined;
  const server = await buildServer({
    networks: opened.map((n) => n.handle),
    keys: registry,
    logger,
    // the server reads config.transport, config.server, config.cors
    config,
    metricsRoute: !separateMetrics,
  });
  // The keys file is watched and read again on SIGHUP; --api-keys keys stay in force.
  const keysFile = config.server.keysFile;
  const watcher = keysFile !== undefined ? watchKeysFile(keysFile, registry, logger, keys.listed) : undefined;
  const onHangup = () => watcher?.reload();
  process.on('SIGHUP', onHangup);
  const metricsServer = separateMetrics ? await startMetricsServer(server.metrics, config.server.metricsHost, config.server.metricsPort!) : undefined;
  const app = server.app;
  if (!['127.0.0.1', 'localhost', '::1'].includes(host)) {
    logger.warn({ host }, 'listening on a non-loopback address: the node is reachable from other machines');
  }
  // The drain of a shutdown (SIGINT, SIGTERM) answers what was received; a second signal exits.
  const stopSignal = firstStopSignal((line) => process.stdout.write(line), config.transport.shutdownRepeatGraceMs);
  try {
    await app.listen({ host, port });
  } catch (err) {
    // Nothing listens: close what was opened (followers, EVM workers, databases) and say why.
    process.off('SIGHUP', onHangup);
    watcher?.close();
    await server.shutdown().catch(() => undefined);
    await metricsServer?.close();
    await Promise.all(opened.map((n) => n.close()));
    throw new ListenError(listenFailure(err as NodeJS.ErrnoException, host, port));
  }
  const shown = host.includes(':') ? `[${host}]` : host;
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  for (const [i, n] of opened.entries()) {
    const health = await n.handle.health();
    const head = (health as { head?: { number: number } }).head;
    const from = (health as { archiveFrom?: number }).archiveFrom;
    const archive = from === undefined ? '' : `, archive from block ${from}`;
    process.stdout.write(`serve: network ${n.handle.name} (${n.kind}${i === 0 ? ', default' : ''}) at block ${head?.number ?? '-'}${archive}\n`);
  }
  process.stdout.write(
    `serve: JSON-RPC  http://${shown}:${actualPort}/v3/<API_KEY>\n` +
      `serve: WebSocket ws://${shown}:${actualPort}/ws/v3/<API_KEY>\n` +
      (opened.length > 1 ? `serve: other networks by Host name, e.g. http://${opened[1].handle.name}.localhost:${actualPort}/v3/<API_KEY>\n` : '') +
      `serve: metrics   http://${metricsServer ? metricsServer.address : `${shown}:${actualPort}`}/metrics\n`,
  );
  const signal = await stopSignal;
  process.stdout.write(`serve: shutting down (${signal}): draining, at most ${config.transport.shutdownDrainMs} ms; a second signal exits at once\n`);
  process.off('SIGHUP', onHangup);
  watcher?.close();
  const drained = await server.shutdown();
  if (drained) process.stdout.write(`serve: drained in ${drained.ms} ms: ${drained.answered} answered, ${drained.cut} cut at the grace period\n`);
  await metricsServer?.close();
  await Promise.all(opened.map((n) => n.close()));
  process.stdout.write('serve: closed\n');
  return 0;
}

/** `serve` could not listen: said in one line, and the process exits 1. */
export class ListenError extends Error {
  override readonly name = 'ListenError';
}

/** What a failed listen means, and what to do about it. */
function listenFailure(err: NodeJS.ErrnoException, host: string, port: number): string {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (err.code === 'EADDRINUSE') {
    return `cannot listen on ${where}: the port is in use (another tracenode, or the node you follow — anvil and geth listen on 8545 too); stop it, or choose another port with --port`;
  }
  if (err.code === 'EACCES') return `cannot listen on ${where}: not allowed (ports below 1024 need privileges); choose another port with --port`;
  if (err.code === 'EADDRNOTAVAIL') return `cannot listen on ${where}: no interface has that address; choose another with --host`;
  return `cannot listen on ${where}: ${err.message}`;
}
