import { openChain } from '../chain/open.js';
import { reindexTraceAddresses } from '../tracing/addressIndex.js';
import { type CommandSpec, commandHelp, parseCommand, requiredDatadir } from './options.js';

/** The datadir, the caches (the trie node cache of the replays) and how often progress is printed. */
const SPEC: CommandSpec = { settings: ['server.datadir', 'caches', 'import.progressIntervalMs'] };
export const REINDEX_TRACES_HELP = commandHelp(
  'tracenode reindex-traces --datadir DIR',
  'Builds the trace_filter address index for blocks imported without it (databases from older\n' +
    'versions). `import` maintains the index itself; this replays only the blocks above the index\n' +
    'head and is resumable. Run it while the datadir is not being served.',
  SPEC,
);

/** `tracenode reindex-traces`. */
export async function runReindexTraces(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, SPEC);
  if (parsed.help) {
    process.stdout.write(REINDEX_TRACES_HELP);
    return 0;
  }
  const { config } = parsed;
  const chain = await openChain(requiredDatadir(config), config.caches);
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let last = performance.now();
  try {
    const { indexed, head } = await reindexTraceAddresses(chain, {
      trieNodeEntries: config.caches.trieNodeEntries,
      signal: abort.signal,
      onBlock(number, chainHead) {
        const now = performance.now();
        if (now - last < config.import.progressIntervalMs) return;
        last = now;
        process.stderr.write(`reindex-traces: block ${number}/${chainHead}\n`);
      },
    });
    process.stdout.write(`reindex-traces: ${indexed} blocks indexed, index head is block ${head}\n`);
    return abort.signal.aborted ? 130 : 0;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await chain.close();
  }
}
