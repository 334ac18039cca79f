import { openChain } from '../chain/open.js';
import { openDatabase } from '../db/database.js';
import { META } from '../db/keys.js';
import { Follower } from '../follow/follower.js';
import type { FollowLoop } from '../follow/followLoop.js';
import { StarknetFollower } from '../follow/starknetFollower.js';
import { Upstream } from '../follow/upstream.js';
import { openStarknetStore } from '../starknet/store.js';
import { CHECKPOINT_HASH, ensureArchiveFrom, FROM } from './archiveFrom.js';
import { type CommandSpec, commandHelp, parseCommand, requiredDatadir, UsageError } from './options.js';

/** The datadir, the upstream and the follow settings, the caches and the importer's; where an empty datadir starts. */
const SPEC: CommandSpec = { settings: ['server.datadir', 'server.follow', 'follow', 'caches', 'import'], flags: [FROM, CHECKPOINT_HASH] };
export const FOLLOW_HELP = commandHelp(
  'tracenode follow --datadir DIR --follow URL [--from BLOCK [--checkpoint-hash HASH]]',
  'Catches a datadir up with an upstream node without serving it, then exits. An Ethereum datadir\n' +
    "follows geth, reth or anvil: every block from the local head to the upstream's head is fetched,\n" +
    'executed and verified as `import` does it. A Starknet datadir follows pathfinder, juno or a\n' +
    "provider: each block's events are indexed as `import-starknet` does it; an empty datadir\n" +
    'whose upstream is a Starknet node becomes a Starknet datadir and starts at block 0. A\n' +
    'reorganisation of the upstream is followed; progress lines go to stderr. For a live node, use\n' +
    '`serve --follow URL`. Resumable: run it again to continue. An Ethereum datadir is made by\n' +
    '`init` first: from a genesis file, or `init --from-node URL` for anvil and Hardhat; or, with\n' +
    '--from, an empty datadir becomes an archive from that block of the followed node.',
  SPEC,
);

/** `tracenode follow`. */
export async function runFollow(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, SPEC);
  if (parsed.help) {
    process.stdout.write(FOLLOW_HELP);
    return 0;
  }
  const { config, values } = parsed;
  const url = config.server.follow;
  if (url === undefined || !/^(https?|wss?):\/\//i.test(url)) throw new UsageError('missing --follow URL (an http(s):// or ws(s):// URL of the upstream node)');
  const datadir = requiredDatadir(config);
  const from = values[FROM.name];
  if (from === undefined && values[CHECKPOINT_HASH.name] !== undefined) throw new UsageError('--checkpoint-hash pins the block of --from');
  if (from !== undefined)
    await ensureArchiveFrom(datadir, url, from, values[CHECKPOINT_HASH.name], config, (line) => process.stdout.write(`follow: ${line}\n`));
  const upstream = new Upstream(url, { requestTimeoutMs: config.follow.requestTimeoutMs });
  const log = {
    info: (o: object, m: string) => process.stderr.write(`follow: ${m} ${JSON.stringify(o)}\n`),
    warn: (o: object, m: string) => process.stderr.write(`follow: ${m} ${JSON.stringify(o)}\n`),
    error: (o: object, m: string) => process.stderr.write(`follow: ${m} ${JSON.stringify(o)}\n`),
    debug: () => undefined,
  };
  const options = { settings: config.follow, importSettings: config.import, log, progress: process.stderr };
  let follower: FollowLoop;
  let head: () => Promise<string>;
  let close: () => Promise<void>;
  if (await isStarknet(datadir, upstream)) {
    const store = await openStarknetStore(datadir, { create: true, blockCacheEntries: config.starknet.blockCacheEntries });
    follower = new StarknetFollower(store, upstream, options);
    head = async () => String((await store.head())?.number ?? 'none');
    close = () => store.close();
  } else {
    const chain = await openChain(datadir, config.caches);
    follower = new Follower(chain, upstream, options);
    head = async () => String((await chain.store.head())?.number);
    close = () => chain.close();
  }
  const stop = () => void follower.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await follower.runOnce();
    process.stdout.write(`follow: head is block ${await head()} (upstream head ${follower.status().upstreamHead})\n`);
    return 0;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await follower.stop();
    await close();
  }
}

/**
 * Whether the datadir is a Starknet one: its kind key says so, or it is empty and the upstream
 * answers `starknet_chainId` (an empty Ethereum datadir needs `init` first: a genesis file, or
 * `--from-node URL` for a development node).
 */
async function isStarknet(datadir: string, upstream: Upstream): Promise<boolean> {
  const level = await openDatabase(datadir);
  let kind: string | undefined;
  let empty: boolean;
  try {
    const bytes = await level.get(META.kind);
    kind = bytes ? new TextDecoder().decode(bytes) : undefined;
    empty = (await level.keys({ limit: 1 }).all()).length === 0;
  } finally {
    await level.close();
  }
  if (kind !== undefined || !empty) return kind === 'starknet';
  try {
    await upstream.call('starknet_chainId');
    return true;
  } catch {
    return false;
  }
}
