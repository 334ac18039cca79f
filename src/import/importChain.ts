import { type Block, createBlockFromRLP } from '@ethereumjs/block';
import { bytesToHex, equalsBytes } from '@ethereumjs/util';
import { mergeBlockOp, pendingMergeDifficulty, scheduleMerge } from '../chain/mergeByDifficulty.js';
import { opBlockFromBytes } from '../chain/op/opBlock.js';
import { type EthereumChain, newestSchemaOp } from '../chain/open.js';
import type { Head } from '../chain/store.js';
import type { Config } from '../config/settings.js';
import type { BatchOp } from '../db/database.js';
import { BlockImporter } from './blockImporter.js';
import { HeaderDeviationReport } from './headerDeviations.js';
import { createProgress } from './progress.js';
import { splitRlpFile } from './rlpFile.js';
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
 * says so (`sideChains.ts`), so a file with forks in it ends on the chain geth's import ends on.
 * A chain that merges by total difficulty gets its merge block from the first block whose parent
 * reached it (`chain/mergeByDifficulty.ts`). `settings` (the `import` section) paces progress
 * lines and sizes the state trie's node cache.
 */
export async function importBlocks(chain: EthereumChain, files: Uint8Array[], settings: Config['import'], opts: ImportOptions = {}): Promise<ImportResult> {
  const parts = files.map((bytes) => splitRlpFile(bytes));
  const progress = createProgress(
    parts.reduce((n, p) => n + p.items.length, 0),
    opts.progress,
    settings.progressIntervalMs,
  );
  const started = performance.now();
  const run = new ImportRun(chain, settings, opts);
  for (const part of parts) {
    for (const item of part.items) {
      if (opts.signal?.aborted) break;
      const block = await run.add(item);
      if (block !== undefined) progress.block(block.header.number, block.header.gasUsed);
    }
    // A file that ends in a cut-off block: the whole blocks before it are imported, then it is refused.
    if (part.truncated !== undefined && !opts.signal?.aborted) {
      throw new InvalidBlockError(`block #${run.imported + run.skipped + 1} in file: cannot decode: ${part.truncated}`);
    }
  }
  progress.done({ imported: run.imported, skipped: run.skipped });
  const head = await chain.store.head();
  if (!head) throw new Error('datadir has no genesis: run init first');
  return {
    imported: run.imported,
    skipped: run.skipped,
    head: { number: head.number, hash: bytesToHex(head.hash) },
    gasUsed: run.gasUsed,
    seconds: (performance.now() - started) / 1000,
    headerDeviations: run.deviations.snapshot(),
    reorganisations: run.reorganisations,
  };
}

/** One import: the blocks of the files, one by one, on one importer. */
class ImportRun {
  imported = 0;
  skipped = 0;
  gasUsed = 0n;
  reorganisations = 0;
  readonly deviations: HeaderDeviationReport;
  private readonly importer: BlockImporter;
  private readonly ttd: bigint | undefined;
  /** The terminal total difficulty while a chain that merges by it has not reached it (`chain/mergeByDifficulty.ts`). */
  private pendingMerge: bigint | undefined;

  constructor(
    private readonly chain: EthereumChain,
    settings: Config['import'],
    private readonly opts: ImportOptions,
  ) {
    this.importer = new BlockImporter(chain, settings);
    this.deviations = new HeaderDeviationReport(opts.warn ?? (() => {}));
    this.ttd = terminalTotalDifficulty(chain.genesis.config);
    this.pendingMerge = pendingMergeDifficulty(chain.genesis.config, chain.common);
  }

  /** Imports one block's RLP: the block, or undefined when it was stored already. Throws {@link InvalidBlockError} for a bad one. */
  async add(item: Uint8Array): Promise<Block | undefined> {
    const { store } = this.chain;
    let block = this.decode(item);
    if ((await store.numberOf(block.hash())) !== undefined) {
      this.skipped++;
      return undefined;
    }
    const head = await store.head();
    if (!head) throw new Error('datadir has no genesis: run init first');
    // The first block whose parent reached the terminal total difficulty is the merge.
    const merge = await this.mergeAt(block);
    try {
      // Decoded again under the merge's rules: a proof-of-work block there does not decode.
      if (merge !== undefined) block = this.decode(item);
      if (equalsBytes(block.header.parentHash, head.hash) || (this.importer.headerChecks === 'lenient' && namesNoParent(block.header))) {
        const executed = await this.importer.execute(block);
        await this.chain.level.batch([...executed.dataOps, ...executed.canonicalOps, ...(merge?.ops ?? [])]);
        this.deviations.record(block, executed.deviations);
      } else {
        await this.addSide(block, head, merge?.ops ?? []);
      }
    } catch (err) {
      merge?.undo();
      throw err;
    }
    if (merge !== undefined) this.pendingMerge = undefined;
    store.invalidateHead();
    this.imported++;
    this.gasUsed += block.header.gasUsed;
    return block;
  }

  private decode(item: Uint8Array): Block {
    try {
      // An OP-stack chain's blocks hold deposits (op-geth's `export` writes them so).
      return this.chain.op ? opBlockFromBytes(item, this.chain.common) : createBlockFromRLP(item, { common: this.chain.common, setHardfork: true });
    } catch (err) {
      throw new InvalidBlockError(`block #${this.imported + this.skipped + 1} in file: cannot decode: ${firstLine(err)}`);
    }
  }

  /** When `block` is the merge of a chain that merges by total difficulty: the merge scheduled at it, the writes that record it, and its undoing. */
  private async mergeAt(block: Block): Promise<{ ops: BatchOp[]; undo: () => void } | undefined> {
    if (this.pendingMerge === undefined) return undefined;
    const parentTd = await this.chain.store.totalDifficulty(block.header.parentHash);
    if (parentTd === undefined || parentTd < this.pendingMerge) return undefined;
    const undo = scheduleMerge(this.chain.common, block.header.number);
    return { ops: [newestSchemaOp(), mergeBlockOp(block.header.number)], undo };
  }

  /** A side chain's block: kept by hash, and the head switches to its branch when geth's fork choice says so. */
  private async addSide(block: Block, head: Head, extraOps: BatchOp[]): Promise<void> {
    const { store } = this.chain;
    const number = block.header.number;
    const parentTd = await store.totalDifficulty(block.header.parentHash);
    if (parentTd === undefined) {
      throw new InvalidBlockError(
        `block ${number} (${bytesToHex(block.hash())}): its parent ${bytesToHex(block.header.parentHash)} is neither stored nor earlier in the file`,
      );
    }
    const executed = await this.importer.execute(block);
    await this.chain.level.batch([...executed.dataOps, ...extraOps]);
    this.deviations.record(block, executed.deviations);
    this.importer.reset();
    const extern = { td: parentTd + block.header.difficulty, number };
    const local = { td: (await store.totalDifficulty(head.hash))!, number: head.number };
    if (!becomesHead(extern, local, this.ttd)) return;
    const moved = await switchHead(this.chain, this.importer, block);
    this.reorganisations++;
    this.opts.warn?.({ block: Number(number), dropped: moved.dropped, added: moved.added }, 'a side chain in the file became the chain: switched to it');
  }
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0];
}
