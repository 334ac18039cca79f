import { openChain } from '../chain/open.js';
import { reindexTraceAddresses } from '../tracing/addressIndex.js';
import { reindexAddressHistory } from '../tracing/historyReindex.js';
import { type CommandSpec, commandHelp, parseCommand, requiredDatadir } from './options.js';

/** The datadir, the caches (the trie node cache of the replays) and how often progress is printed. */
const SPEC: CommandSpec = { settings: ['server.datadir', 'caches', 'import.progressIntervalMs'] };
export const REINDEX_TRACES_HELP = commandHelp(
  'tracenode reindex-traces --datadir DIR',
  'Builds the trace_filter address index and the Otterscan address history (ots_search*,\n' +
    'ots_getContractCreator, ots_getTransactionBySenderAndNonce) for blocks imported without them\n' +
    '(databases from older versions). `import` and following maintain both; this replays only the\n' +
    'blocks above each index head and is resumable. Run it while the datadir is not being served.',
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
    const progress = (what: string) => (number: bigint, chainHead: bigint) => {
      const now = performance.now();
      if (now - last < config.import.progressIntervalMs) return;
      last = now;
      process.stderr.write(`reindex-traces: ${what} block ${number}/${chainHead}\n`);
    };
    const options = { trieNodeEntries: config.caches.trieNodeEntries, signal: abort.signal };
    const traces = await reindexTraceAddresses(chain, { ...options, onBlock: progress('trace index') });
    process.stdout.write(`reindex-traces: ${traces.indexed} blocks indexed, index head is block ${traces.head}\n`);
    if (abort.signal.aborted) return 130;
    const history = await reindexAddressHistory(chain, { ...options, onBlock: progress('address history') });
    process.stdout.write(`reindex-traces: address history: ${history.indexed} blocks indexed, history head is block ${history.head}\n`);
    return abort.signal.aborted ? 130 : 0;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await chain.close();
  }
}
