import { type Block, createBlockFromRLP } from '@ethereumjs/block';
import { bytesToHex, equalsBytes } from '@ethereumjs/util';
import { createVM, type RunBlockResult, runBlock, type VM } from '@ethereumjs/vm';
import { evmBlockchain } from '../chain/blockHashes.js';
import type { EthereumChain } from '../chain/open.js';
import type { StoredReceipt } from '../chain/receipts.js';
import type { Config } from '../config/settings.js';
import type { BatchOp } from '../db/database.js';
import { createStateManager } from '../state/stateManager.js';
import { TrieDB } from '../state/trieDb.js';
import { createTraceIndexer, type TraceIndexer } from '../tracing/addressIndex.js';
import { createProgress } from './progress.js';
import { splitRlpItems } from './rlpFile.js';
import { InvalidBlockError, validateHeader, validateUncles } from './validate.js';

/** Options of {@link importBlocks}. */
export interface ImportOptions {
  /** Where progress lines go (a terminal's stderr), every `import.progressIntervalMs`; silent when undefined. */
  progress?: NodeJS.WritableStream;
  /** Checked between blocks: when aborted, the import stops after the current block's batch. */
  signal?: AbortSignal;
}

/** Result of an import run. */
export interface ImportResult {
  imported: number;
  skipped: number;
  head: { number: bigint; hash: string };
  gasUsed: bigint;
  seconds: number;
}

/**
 * Imports concatenated RLP blocks (geth `export` format) into an opened chain. Each block is
 * checked against its parent, executed on the parent's state with @ethereumjs/vm, and its
 * stateRoot, receiptsRoot, logsBloom, gasUsed (and requestsHash) compared with the header; then
 * the block, its receipts, lookups, the new trie nodes and the head pointer are written in ONE
 * LevelDB batch. A crash therefore leaves a complete head block; blocks already present are
 * skipped, so running again resumes. A bad block throws {@link InvalidBlockError} naming it, and
 * nothing of it is written. `settings` (the `import` section) paces progress lines and sizes the
 * state trie's node cache.
 */
export async function importBlocks(chain: EthereumChain, files: Uint8Array[], settings: Config['import'], opts: ImportOptions = {}): Promise<ImportResult> {
  const items = files.flatMap((bytes) => splitRlpItems(bytes));
  const progress = createProgress(items.length, opts.progress, settings.progressIntervalMs);
  const started = performance.now();
  const { store, common } = chain;
  const trieDb = new TrieDB(chain.level);
  let vm: VM | undefined;
  // Records each executed block's call tree to index trace addresses (for trace_filter).
  let indexer: TraceIndexer | undefined;
  let imported = 0;
  let skipped = 0;
  let gasUsed = 0n;

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
    if (number <= head.number) throw new InvalidBlockError(`${label}: differs from the stored canonical block ${number}; reorganisations are not supported`);
    if (number !== head.number + 1n) throw new InvalidBlockError(`${label}: expected block ${head.number + 1n} next (head is ${head.number})`);
    if (!equalsBytes(block.header.parentHash, head.hash)) {
      throw new InvalidBlockError(`${label}: parentHash ${bytesToHex(block.header.parentHash)} != head ${bytesToHex(head.hash)}`);
    }
    const parent = await store.blockByHash(head.hash);
    const parentTd = await store.totalDifficulty(head.hash);
    if (!parent || parentTd === undefined) throw new Error(`database corrupt: head block ${head.number} unreadable`);

    try {
      validateHeader(block.header, parent.header);
      await validateUncles(block, store);
    } catch (err) {
      if (err instanceof InvalidBlockError) throw new InvalidBlockError(`${label}: ${err.message}`);
      throw err;
    }

    // One VM for the run, created lazily at the parent state; it keeps its caches between blocks.
    if (!vm) {
      const sm = createStateManager(common, trieDb, { trieNodeCacheEntries: settings.trieNodeCacheEntries, root: parent.header.stateRoot, caches: true });
      vm = await createVM({ common, stateManager: sm, blockchain: evmBlockchain(store) });
      indexer = createTraceIndexer(vm, chain.level);
    }
    let result: RunBlockResult;
    try {
      result = await runBlock(vm, { block, generate: true, skipHeaderValidation: true, setHardfork: true, clearCache: false });
    } catch (err) {
      trieDb.discard();
      vm = undefined;
      indexer = undefined;
      throw new InvalidBlockError(`${label}: execution failed: ${firstLine(err)}`);
    }
    const mismatch = compareResults(block, result);
    if (mismatch) {
      trieDb.discard();
      vm = undefined;
      indexer = undefined;
      throw new InvalidBlockError(`${label}: ${mismatch}`);
    }

    const receipts: StoredReceipt[] = result.receipts.map((r, i) => {
      const prevCumulative = i === 0 ? 0n : result.receipts[i - 1].cumulativeBlockGasUsed;
      const stored: StoredReceipt = {
        statusOrRoot: 'status' in r ? Uint8Array.of(r.status) : (r as { stateRoot: Uint8Array }).stateRoot,
        cumulativeGasUsed: r.cumulativeBlockGasUsed,
        gasUsed: r.cumulativeBlockGasUsed - prevCumulative,
        logs: r.logs.map(([address, topics, data]) => [address, topics, data]),
        contractAddress: result.results[i].createdAddress?.bytes,
      };
      if ('blobGasUsed' in r) {
        stored.blobGasUsed = (r as { blobGasUsed: bigint }).blobGasUsed;
        stored.blobGasPrice = (r as { blobGasPrice: bigint }).blobGasPrice;
      }
      return stored;
    });
    const ops: BatchOp[] = [];
    trieDb.drain(ops);
    ops.push(...store.blockOps(block, receipts, parentTd + block.header.difficulty));
    ops.push(...(await indexer!.blockOps(block)));
    await chain.level.batch(ops);
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
  };
}

/** The first header field that execution did not reproduce, as `field got != header want`. */
function compareResults(
  block: Block,
  result: { stateRoot: Uint8Array; receiptsRoot: Uint8Array; logsBloom: Uint8Array; gasUsed: bigint; requestsHash?: Uint8Array },
): string | undefined {
  const h = block.header;
  if (result.gasUsed !== h.gasUsed) return `gasUsed ${result.gasUsed} != header ${h.gasUsed}`;
  if (!equalsBytes(result.receiptsRoot, h.receiptTrie)) return `receiptsRoot ${bytesToHex(result.receiptsRoot)} != header ${bytesToHex(h.receiptTrie)}`;
  if (!equalsBytes(result.logsBloom, h.logsBloom)) return `logsBloom differs from header`;
  if (h.requestsHash !== undefined && result.requestsHash !== undefined && !equalsBytes(result.requestsHash, h.requestsHash)) {
    return `requestsHash ${bytesToHex(result.requestsHash)} != header ${bytesToHex(h.requestsHash)}`;
  }
  if (!equalsBytes(result.stateRoot, h.stateRoot)) return `stateRoot ${bytesToHex(result.stateRoot)} != header ${bytesToHex(h.stateRoot)}`;
  return undefined;
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0];
}
