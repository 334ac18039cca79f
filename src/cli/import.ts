import { readFileSync } from 'node:fs';
import { openChain } from '../chain/open.js';
import { importBlocks } from '../import/importChain.js';
import { DATADIR, helpText, parseFlags, required, UsageError } from './options.js';

const FLAGS = [DATADIR];
export const IMPORT_HELP = helpText(
  'tracenode import --datadir DIR chain.rlp [more.rlp…]',
  'Executes and archives concatenated RLP blocks (geth `export` format). Every block is verified\n' +
    '(hash linkage, stateRoot, receiptsRoot, logsBloom, gasUsed, uncles) and written atomically;\n' +
    'blocks already present are skipped, so an interrupted import resumes where it stopped.',
  FLAGS,
);

/** `tracenode import`. */
export async function runImport(argv: string[]): Promise<number> {
  const { values, positionals, help } = parseFlags(argv, FLAGS);
  if (help) {
    process.stdout.write(IMPORT_HELP);
    return 0;
  }
  const datadir = required(values, DATADIR);
  if (positionals.length === 0) throw new UsageError('no RLP file given');
  const files = positionals.map((path) => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  });
  const chain = await openChain(datadir);
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const result = await importBlocks(chain, files, {
      progress: process.stderr,
      progressIntervalMs: Number(process.env.TRACENODE_PROGRESS_MS ?? 1000),
      signal: abort.signal,
    });
    process.stdout.write(`import: head is block ${result.head.number} ${result.head.hash}\n`);
    return abort.signal.aborted ? 130 : 0;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await chain.close();
  }
}
