import { openDatabase } from '../db/database.js';
import { Upstream, UpstreamError } from '../follow/upstream.js';
import { feltsEqual, isFelt, normalizeFelt } from '../starknet/felt.js';
import { DATADIR_KIND_KEY, DATADIR_KIND_STARKNET } from '../starknet/keys.js';
import { openStarknetStore } from '../starknet/store.js';
import { UsageError } from './options.js';

/**
 * `serve`/`follow` with `--from` when the datadir is a Starknet one, or empty with a Starknet
 * upstream (one that answers `starknet_chainId`): the empty datadir becomes a Starknet datadir
 * that follows from that block of the upstream, `latest` (its head now) or a number, instead of
 * block 0. The block is recorded (`StarknetStore.fromBlock`), so a restart before its first block
 * is written starts there too; `--checkpoint-hash` pins that block's hash. A datadir that already
 * follows is kept when `--from` agrees with where it started (a restart with the same command).
 * Returns false when neither datadir nor upstream is Starknet: the Ethereum `--from` applies.
 */
export async function ensureStarknetFrom(
  datadir: string,
  url: string,
  from: string,
  checkpointHash: string | undefined,
  config: { follow: { requestTimeoutMs: number }; starknet: { blockCacheEntries: number } },
  say: (line: string) => void,
): Promise<boolean> {
  const level = await openDatabase(datadir);
  let kind: string | undefined;
  let empty: boolean;
  try {
    const bytes = await level.get(DATADIR_KIND_KEY);
    kind = bytes && new TextDecoder().decode(bytes);
    empty = (await level.keys({ limit: 1 }).all()).length === 0;
  } finally {
    await level.close();
  }
  if (kind !== undefined && kind !== DATADIR_KIND_STARKNET) return false;
  if (kind === undefined && !empty) return false;
  const upstream = new Upstream(url, { requestTimeoutMs: config.follow.requestTimeoutMs });
  try {
    let chainId: unknown;
    try {
      chainId = await upstream.call('starknet_chainId');
    } catch (err) {
      if (kind === undefined) return false;
      throw err;
    }
    const at = await startBlock(upstream, from, checkpointHash);
    const store = await openStarknetStore(datadir, { create: true, blockCacheEntries: config.starknet.blockCacheEntries });
    try {
      if (empty) {
        if (isFelt(chainId)) await store.setChainId(normalizeFelt(chainId));
        await store.setFromBlock(at.number);
        say(`Starknet datadir following from block ${at.number} (${at.hash}) of the node at ${upstream.shownUrl}, written to ${datadir}`);
        return true;
      }
      const started = (await store.fromBlock()) ?? (await store.firstBlock())?.number ?? 0;
      if (/^\d+$/.test(from) && at.number !== started) throw new UsageError(`${datadir} follows from block ${started}, not from block ${at.number}`);
      return true;
    } finally {
      await store.close();
    }
  } finally {
    upstream.close();
  }
}

/** The block `--from` names on the upstream (`latest` or a number), checked against `--checkpoint-hash`. */
async function startBlock(upstream: Upstream, from: string, checkpointHash: string | undefined): Promise<{ number: number; hash: string }> {
  let at: { number: number; hash: string };
  if (from === 'latest') {
    const head = (await upstream.call('starknet_blockHashAndNumber')) as { block_number?: unknown; block_hash?: unknown } | null;
    if (typeof head?.block_number !== 'number' || typeof head.block_hash !== 'string')
      throw new UpstreamError('upstream answered a malformed starknet_blockHashAndNumber');
    at = { number: head.block_number, hash: head.block_hash };
  } else if (/^\d+$/.test(from) && Number.isSafeInteger(Number(from))) {
    const block = (await upstream.call('starknet_getBlockWithTxHashes', [{ block_number: Number(from) }])) as { block_hash?: unknown } | null;
    if (typeof block?.block_hash !== 'string') throw new UpstreamError(`upstream answered a malformed block ${from}`);
    at = { number: Number(from), hash: block.block_hash };
  } else {
    throw new UsageError(`--from ${JSON.stringify(from)}: a Starknet datadir follows from latest or a block number`);
  }
  if (checkpointHash !== undefined && !(isFelt(checkpointHash) && feltsEqual(checkpointHash, at.hash))) {
    throw new UsageError(`the upstream's block ${at.number} is ${at.hash}, not the checkpoint ${checkpointHash}`);
  }
  return at;
}
