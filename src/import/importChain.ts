import { type Block, createBlockFromRLP } from '@ethereumjs/block';
import { bytesToHex, equalsBytes } from '@ethereumjs/util';
import type { EthereumChain } from '../chain/open.js';
import type { Config } from '../config/settings.js';
import { BlockImporter } from './blockImporter.js';
import { HeaderDeviationReport } from './headerDeviations.js';
import { createProgress } from './progress.js';
import { splitRlpItems } from './rlpFile.js';
import { becomesHead, switchHead, terminalTotalDifficulty } from './sideChains.js';
import { InvalidBlockError, namesNoParent } from './validate.js';

/** Options of {@link importBlocks}. */
export interface ImportOptions {
  /** Where progress lines go (a terminal's stderr), every `import.progressIntervalMs`; silent when undefined. */
  progress?: NodeJS.WritableStream;
  /** Checked between blocks: when aborted, the import stops after the current block's batch. */
  signal?: AbortSignal;
  /** Where the first block breaking each header rule is reported (lenient header checks). */
  warn?: (obj: object, msg: string) => void;
}

/** Result of an import run. */
export interface ImportResult {
  imported: number;
  skipped: number;
  head: { number: bigint; hash: string };
  gasUsed: bigint;
  seconds: number;
  /** Header rules broken by imported blocks under lenient checks, by rule. */
  headerDeviations: Partial<Record<string, number>>;
  /** Times a side chain of the files became the chain. */
  reorganisations: number;
}

/**
 * Imports concatenated RLP blocks (geth `export` format) into an opened chain. Each block is
 * checked against its parent, executed on the parent's state with @ethereumjs/vm, and its
 * stateRoot, receiptsRoot, logsBloom, gasUsed (and requestsHash) compared with the header; then
 * the block, its receipts, lookups, the new trie nodes and the head pointer are written in ONE
 * LevelDB batch. A crash therefore leaves a complete head block; blocks already present are
 * skipped, so running again resumes. A bad block throws {@link InvalidBlockError} naming it, and
 * nothing of it is written. A block whose parent is stored but is not the head (a side chain) is
 * executed on that parent and kept by hash; the head moves to its branch when geth's fork choice
 * says so (`sideChains.ts`), so a file with forks in it ends on the chain geth's import ends on. `settings` (the `import` section) paces progress lines and sizes the
 * state trie's node cache.
 */
export async function importBlocks(chain: EthereumChain, files: Uint8Array[], settings: Config['import'], opts: ImportOptions = {}): Promise<ImportResult> {
  const items = files.flatMap((bytes) => splitRlpItems(bytes));
  const progress = createProgress(items.length, opts.progress, settings.progressIntervalMs);
  const started = performance.now();
  const { store, common } = chain;
  const importer = new BlockImporter(chain, settings);
  const deviations = new HeaderDeviationReport(opts.warn ?? (() => {}));
  let imported = 0;
  let skipped = 0;
  let gasUsed = 0n;
  let reorganisations = 0;
  const ttd = terminalTotalDifficulty(chain.genesis.config);

  for (const item of items) {
    if (opts.signal?.aborted) break;
    let block: Block;
    try {
      block = createBlockFromRLP(item, { common, setHardfork: true });
    } catch (err) {
      throw new InvalidBlockError(`block #${imported + skipped + 1} in file: cannot decode: ${firstLine(err)}`);
    }
    const number = block.header.number;
    const hash = block.hash();
    const label = `block ${number} (${bytesToHex(hash)})`;
    if ((await store.numberOf(hash)) !== undefined) {
      skipped++;
      continue;
    }
    const head = await store.head();
    if (!head) throw new Error('datadir has no genesis: run init first');
    if (equalsBytes(block.header.parentHash, head.hash) || (importer.headerChecks === 'lenient' && namesNoParent(block.header))) {
      const executed = await importer.execute(block);
      await chain.level.batch([...executed.dataOps, ...executed.canonicalOps]);
      deviations.record(block, executed.deviations);
    } else {
      // A side chain: kept by hash, and the head switches to it when geth's fork choice says so.
      const parentTd = await store.totalDifficulty(block.header.parentHash);
      if (parentTd === undefined)
        throw new InvalidBlockError(`${label}: its parent ${bytesToHex(block.header.parentHash)} is neither stored nor earlier in the file`);
      const executed = await importer.execute(block);
      await chain.level.batch(executed.dataOps);
      deviations.record(block, executed.deviations);
      importer.reset();
      const extern = { td: parentTd + block.header.difficulty, number };
      const local = { td: (await store.totalDifficulty(head.hash))!, number: head.number };
      if (becomesHead(extern, local, ttd)) {
        const moved = await switchHead(chain, importer, block);
        reorganisations++;
        opts.warn?.({ block: Number(number), dropped: moved.dropped, added: moved.added }, 'a side chain in the file became the chain: switched to it');
      }
    }
    store.invalidateHead();
    imported++;
    gasUsed += block.header.gasUsed;
    progress.block(number, block.header.gasUsed);
  }
  progress.done({ imported, skipped });
  const head = await store.head();
  if (!head) throw new Error('datadir has no genesis: run init first');
  return {
    imported,
    skipped,
    head: { number: head.number, hash: bytesToHex(head.hash) },
    gasUsed,
    seconds: (performance.now() - started) / 1000,
    headerDeviations: deviations.snapshot(),
    reorganisations,
  };
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0];
}
