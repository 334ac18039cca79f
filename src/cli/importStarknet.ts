import { accessSync, constants } from 'node:fs';
import { isFelt, normalizeFelt } from '../starknet/felt.js';
import { importStarknetBlocks, readFileLines, StateUpdateLines } from '../starknet/importBlocks.js';
import { openStarknetStore } from '../starknet/store.js';
import { type CommandSpec, commandHelp, type FlagSpec, parseCommand, requiredDatadir, UsageError } from './options.js';

/** `--state-updates FILE`: the blocks' state updates. */
const STATE_UPDATES: FlagSpec = {
  name: 'state-updates',
  env: 'TRACENODE_STATE_UPDATES',
  arg: 'FILE',
  help: "the blocks' state updates, one starknet_getStateUpdate result per line, in the blocks' order",
};
/** `--chain-id ID`: the chain the blocks are of. */
const CHAIN_ID: FlagSpec = {
  name: 'chain-id',
  env: 'TRACENODE_CHAIN_ID',
  arg: 'ID',
  help: 'the chain the blocks belong to, answered by starknet_chainId: SN_MAIN, SN_SEPOLIA or a felt (0x534e5f4d41494e)',
};

/** The datadir and how often progress is printed; the state updates and the chain id. */
const SPEC: CommandSpec = { settings: ['server.datadir', 'import.progressIntervalMs'], flags: [STATE_UPDATES, CHAIN_ID] };
export const IMPORT_STARKNET_HELP = commandHelp(
  'tracenode import-starknet --datadir DIR [--state-updates FILE] [--chain-id ID] blocks.ndjson [more.ndjson…]',
  'Imports Starknet blocks: one starknet_getBlockWithReceipts result per line. Stores each block\n' +
    '(its header, transactions and receipts) and its events with their indexes in one atomic\n' +
    'batch, with its state update when --state-updates gives one (then starknet_getStateUpdate,\n' +
    'and state reads from the first block with one). Block numbers may have gaps; blocks already\n' +
    'present (same number or hash) are skipped, so an interrupted import resumes. A malformed\n' +
    'line stops the import with its line number; nothing of that block is written. The datadir\n' +
    'must be empty or a Starknet one.',
  SPEC,
);

/** A chain id as given (`SN_MAIN`, or a felt) as `starknet_chainId` answers it: a felt. */
export function chainIdFelt(id: string): string {
  if (isFelt(id)) return normalizeFelt(id);
  if (!/^[\x20-\x7e]{1,31}$/.test(id)) throw new UsageError(`--chain-id ${JSON.stringify(id)}: want a short name such as SN_MAIN or a felt`);
  return `0x${Buffer.from(id, 'latin1').toString('hex')}`;
}

/** `tracenode import-starknet`. */
export async function runImportStarknet(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, SPEC);
  if (parsed.help) {
    process.stdout.write(IMPORT_STARKNET_HELP);
    return 0;
  }
  const { config, positionals, values } = parsed;
  const datadir = requiredDatadir(config);
  if (positionals.length === 0) throw new UsageError('no NDJSON file given');
  const chainId = values['chain-id'] === undefined ? undefined : chainIdFelt(values['chain-id']);
  const stateFile = values['state-updates'];
  for (const path of stateFile === undefined ? positionals : [...positionals, stateFile]) {
    try {
      accessSync(path, constants.R_OK);
    } catch (err) {
      throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  const store = await openStarknetStore(datadir, { create: true, blockCacheEntries: config.starknet.blockCacheEntries });
  if (chainId !== undefined) {
    const recorded = await store.chainId();
    if (recorded !== undefined && recorded !== chainId) {
      await store.close();
      throw new UsageError(`--chain-id ${chainId}: ${datadir} holds chain ${recorded}`);
    }
    await store.setChainId(chainId);
  }
  const stateUpdates = stateFile === undefined ? undefined : new StateUpdateLines(readFileLines(stateFile), stateFile);
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const total = { imported: 0, skipped: 0, events: 0, seconds: 0 };
  try {
    for (const path of positionals) {
      if (abort.signal.aborted) break;
      const r = await importStarknetBlocks(store, readFileLines(path), {
        source: path,
        progress: { to: process.stderr, everyMs: config.import.progressIntervalMs },
        signal: abort.signal,
        stateUpdates,
      });
      total.imported += r.imported;
      total.skipped += r.skipped;
      total.events += r.events;
      total.seconds += r.seconds;
    }
    if (!abort.signal.aborted) await stateUpdates?.finish();
    const latest = await store.latestNumber();
    const secs = Math.max(total.seconds, 1e-9);
    process.stdout.write(
      `import-starknet: done, ${total.imported} blocks (${total.events} events) imported, ${total.skipped} already present, ` +
        `in ${total.seconds.toFixed(1)} s (${(total.imported / secs).toFixed(1)} blocks/s, ${Math.round(total.events / secs)} events/s); ` +
        `latest block ${latest ?? 'none'}\n`,
    );
    return abort.signal.aborted ? 130 : 0;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await store.close();
  }
}
