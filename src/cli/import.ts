import { readFileSync } from 'node:fs';
import { openChain } from '../chain/open.js';
import { importBlocks } from '../import/importChain.js';
import { type CommandSpec, commandHelp, parseCommand, requiredDatadir, UsageError } from './options.js';

/** The datadir, the chain store's caches and the import settings (progress, trie cache). */
const SPEC: CommandSpec = { settings: ['server.datadir', 'import', 'caches'] };
export const IMPORT_HELP = commandHelp(
  'tracenode import --datadir DIR chain.rlp [more.rlp…]',
  'Executes and archives concatenated RLP blocks (geth `export` format). Every block is verified\n' +
    '(hash linkage, stateRoot, receiptsRoot, logsBloom, gasUsed, uncles) and written atomically;\n' +
    'blocks already present are skipped, so an interrupted import resumes where it stopped.',
  SPEC,
);

/** `tracenode import`. */
export async function runImport(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, SPEC);
  if (parsed.help) {
    process.stdout.write(IMPORT_HELP);
    return 0;
  }
  const { config, positionals } = parsed;
  const datadir = requiredDatadir(config);
  if (positionals.length === 0) throw new UsageError('no RLP file given');
  const files = positionals.map((path) => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  });
  const chain = await openChain(datadir, config.caches);
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const warn = (obj: object, msg: string) => process.stderr.write(`import: ${msg} ${JSON.stringify(obj)}\n`);
    const result = await importBlocks(chain, files, config.import, { progress: process.stderr, signal: abort.signal, warn });
    process.stdout.write(`import: head is block ${result.head.number} ${result.head.hash}\n`);
    const deviations = Object.entries(result.headerDeviations);
    if (deviations.length > 0)
      process.stdout.write(`import: header rules broken (lenient checks): ${deviations.map(([rule, n]) => `${rule} ${n}`).join(', ')}\n`);
    return abort.signal.aborted ? 130 : 0;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await chain.close();
  }
}
