import { openChain } from '../chain/open.js';
import { reindexTraceAddresses } from '../tracing/addressIndex.js';
import { DATADIR, helpText, parseFlags, required } from './options.js';

const FLAGS = [DATADIR];
export const REINDEX_TRACES_HELP = helpText(
  'tracenode reindex-traces --datadir DIR',
  'Builds the trace_filter address index for blocks imported without it (databases from older\n' +
    'versions). `import` maintains the index itself; this replays only the blocks above the index\n' +
    'head and is resumable. Run it while the datadir is not being served.',
  FLAGS,
);

/** `tracenode reindex-traces`. */
export async function runReindexTraces(argv: string[]): Promise<number> {
  const { values, help } = parseFlags(argv, FLAGS);
  if (help) {
    process.stdout.write(REINDEX_TRACES_HELP);
    return 0;
  }
  const chain = await openChain(required(values, DATADIR));
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let last = performance.now();
  try {
    const { indexed, head } = await reindexTraceAddresses(chain, {
      signal: abort.signal,
      onBlock(number, chainHead) {
        const now = performance.now();
        if (now - last < 1000) return;
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
