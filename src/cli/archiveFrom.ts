import { bytesToHex } from '@ethereumjs/util';
import { readArchiveStart } from '../chain/archiveStart.js';
import type { OpGenesisUpgrade } from '../chain/op/rollup.js';
import type { Config } from '../config/settings.js';
import { openDatabase } from '../db/database.js';
import { KIND_ETHEREUM, META } from '../db/keys.js';
import { GenesisAnchorError, parseAt, parseCheckpointHash, readAnchor } from '../follow/anchor.js';
import { readNodeGenesis } from '../follow/nodeGenesis.js';
import { shownUpstreamUrl, Upstream } from '../follow/upstream.js';
import { type InitResult, initDatadirAt, initDatadirFromNode } from '../import/init.js';
import { type FlagSpec, UsageError } from './options.js';
import { ensureStarknetFrom } from './starknetFrom.js';

/**
 * An archive that starts at block N, made by `init --from-node URL --at N` or, on an empty datadir,
 * by `serve --follow URL --from N` and `follow --follow URL --from N` (docs/following.md,
 * "Starting from block N"): the flags, and the one place both ways write it.
 */

/** `--from`: where `serve`/`follow` start an empty datadir. */
export const FROM: FlagSpec = {
  name: 'from',
  env: 'TRACENODE_FROM',
  arg: 'BLOCK',
  help: 'an empty datadir becomes an archive from this block of the followed node: latest, safe, finalized or a number (no state is downloaded up front)',
};
/** `--checkpoint-hash`: the hash the start block must have. */
export const CHECKPOINT_HASH: FlagSpec = {
  name: 'checkpoint-hash',
  env: 'TRACENODE_CHECKPOINT_HASH',
  arg: 'HASH',
  help: "the start block's hash, from a source you trust: refuse to start if the followed node's differs",
};

/** The settings reading block N takes: the datadir's caches, the upstream request deadline. */
type ArchiveConfig = Pick<Config, 'caches' | 'follow' | 'starknet' | 'import'>;

/**
 * Writes an archive that starts at block `at` of the node at `url` into `datadir` (checks as
 * `follow/anchor.ts` says); `genesisText` gives the rules of a chain that is neither public nor a
 * development node. Tells what it did on `say`.
 */
export async function initArchiveFrom(
  datadir: string,
  url: string,
  opts: { at: string; checkpointHash?: string; genesisText?: string; opUpgrade?: OpGenesisUpgrade },
  config: ArchiveConfig,
  say: (line: string) => void,
): Promise<InitResult> {
  const upstream = new Upstream(url, { requestTimeoutMs: config.follow.requestTimeoutMs });
  try {
    let anchor: Awaited<ReturnType<typeof readAnchor>>;
    try {
      anchor = await readAnchor(upstream, opts);
    } catch (err) {
      if (!(err instanceof GenesisAnchorError)) throw err;
      return await fromGenesis(datadir, upstream, err.message, opts.checkpointHash, config, say, opts.opUpgrade);
    }
    const result = await initDatadirAt(datadir, anchor, config);
    const n = anchor.block.header.number;
    say(
      result.alreadyInitialised
        ? `${datadir} already holds an archive from block ${n} (${result.hash})`
        : `archive from block ${n} (${result.hash}, stateRoot ${result.stateRoot}) of the node at ${shownUpstreamUrl(url)}, chain id ${anchor.common.chainId()} (${anchor.rulesSource} rules), written to ${datadir}`,
    );
    return result;
  } finally {
    upstream.close();
  }
}

/**
 * `serve`/`follow` with `--from`: an empty datadir becomes an archive from that block of the
 * node at `url`; an archive from block N already there is kept when `--from` and
 * `--checkpoint-hash` agree with it (a restart with the same command); anything else is refused.
 */
export async function ensureArchiveFrom(
  datadir: string,
  url: string,
  from: string,
  checkpointHash: string | undefined,
  config: ArchiveConfig,
  say: (line: string) => void,
): Promise<void> {
  // A Starknet datadir, or an empty one whose upstream is a Starknet node, follows from that block instead (`starknetFrom.ts`).
  if (await ensureStarknetFrom(datadir, url, from, checkpointHash, config, say)) return;
  let at: string | bigint;
  let checkpoint: string | undefined;
  try {
    at = parseAt(from);
    checkpoint = checkpointHash === undefined ? undefined : parseCheckpointHash(checkpointHash);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const level = await openDatabase(datadir);
  let kind: Uint8Array | undefined;
  let initialised: boolean;
  let start: Awaited<ReturnType<typeof readArchiveStart>>;
  try {
    kind = await level.get(META.kind);
    initialised = (await level.get(META.schema)) !== undefined;
    start = await readArchiveStart(level);
  } finally {
    await level.close();
  }
  // A Starknet network follows its node as it always does: --from is an Ethereum archive's start.
  if (kind !== undefined && new TextDecoder().decode(kind) !== KIND_ETHEREUM) return;
  if (!initialised) {
    await initArchiveFrom(datadir, url, { at: from, checkpointHash: checkpoint }, config, say);
    return;
  }
  if (start === undefined) {
    // A tag that named block 0 when the datadir was made started it from the genesis: the same command again goes on.
    if (typeof at !== 'bigint' && checkpoint === undefined) return;
    throw new UsageError(`--from starts an empty datadir, and ${datadir} already holds a chain from its genesis`);
  }
  if (typeof at === 'bigint' && at !== start.number) throw new UsageError(`${datadir} is an archive from block ${start.number}, not from block ${at}`);
  if (checkpoint !== undefined && checkpoint !== bytesToHex(start.hash)) {
    throw new UsageError(`${datadir} is an archive from block ${start.number} ${bytesToHex(start.hash)}, not from the checkpoint ${checkpoint}`);
  }
}

/**
 * `--from` named block 0: the datadir starts from the node's genesis as `init --from-node` makes it
 * (the accounts the node holds at block 0, checked against its proofs), and the follower executes
 * every block from 1. A checkpoint hash must then be block 0's. A node whose genesis cannot be read
 * that way (not a development node) is refused with what to do instead.
 */
async function fromGenesis(
  datadir: string,
  upstream: Upstream,
  why: string,
  checkpointHash: string | undefined,
  config: ArchiveConfig,
  say: (line: string) => void,
  opUpgrade?: OpGenesisUpgrade,
): Promise<InitResult> {
  let node: Awaited<ReturnType<typeof readNodeGenesis>>;
  try {
    node = await readNodeGenesis(upstream, opUpgrade);
  } catch (err) {
    throw new Error(
      `${why}: an archive from block 0 holds the whole chain, and this node's genesis could not be read (${(err as Error).message}): init the datadir from the chain's genesis file (tracenode init --genesis genesis.json), or start from a later block (--from N)`,
    );
  }
  if (checkpointHash !== undefined && checkpointHash !== bytesToHex(node.block.hash())) {
    throw new Error(`${why}, ${bytesToHex(node.block.hash())}, not the checkpoint ${checkpointHash}: refusing to start there`);
  }
  const result = await initDatadirFromNode(datadir, node, config);
  say(
    result.alreadyInitialised
      ? `${why}: ${datadir} already holds the node's chain from its genesis ${result.hash}`
      : `${why}: following it from its genesis instead, as init --from-node does (chain id ${node.common.chainId()}, ${node.info.accounts} accounts at block 0, genesis ${result.hash}), written to ${datadir}; every block from 1 is executed`,
  );
  return result;
}
