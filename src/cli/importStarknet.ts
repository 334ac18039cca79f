import { accessSync, constants } from 'node:fs';
import { importStarknetBlocks, readFileLines } from '../starknet/importBlocks.js';
import { openStarknetStore } from '../starknet/store.js';
import { type CommandSpec, commandHelp, parseCommand, requiredDatadir, UsageError } from './options.js';

/** The datadir and how often progress is printed. */
const SPEC: CommandSpec = { settings: ['server.datadir', 'import.progressIntervalMs'] };
export const IMPORT_STARKNET_HELP = commandHelp(
  'tracenode import-starknet --datadir DIR blocks.ndjson [more.ndjson…]',
  'Imports Starknet blocks: one starknet_getBlockWithReceipts result per line. Stores each block\n' +
    '(hash, number, parent, timestamp, status) and its events with their indexes in one atomic\n' +
    'batch. Block numbers may have gaps; blocks already present (same number or hash) are skipped,\n' +
    'so an interrupted import resumes. A malformed line stops the import with its line number;\n' +
    'nothing of that block is written. The datadir must be empty or a Starknet one.',
  SPEC,
);

/** `tracenode import-starknet`. */
export async function runImportStarknet(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, SPEC);
  if (parsed.help) {
    process.stdout.write(IMPORT_STARKNET_HELP);
    return 0;
  }
  const { config, positionals } = parsed;
  const datadir = requiredDatadir(config);
  if (positionals.length === 0) throw new UsageError('no NDJSON file given');
  for (const path of positionals) {
    try {
      accessSync(path, constants.R_OK);
    } catch (err) {
      throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  const store = await openStarknetStore(datadir, { create: true, blockCacheEntries: config.starknet.blockCacheEntries });
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
      });
      total.imported += r.imported;
      total.skipped += r.skipped;
      total.events += r.events;
      total.seconds += r.seconds;
    }
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
