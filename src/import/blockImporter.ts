import type { Block } from '@ethereumjs/block';
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
import { type HeaderDeviation, headerChecksFor, InvalidBlockError, validateHeader, validateUncles } from './validate.js';

/**
 * Executes and verifies one block on its stored parent, for `import` and for following an
 * upstream node: the header is checked against the parent (and the uncles), the block runs on the
 * parent's state with @ethereumjs/vm, and its stateRoot, receiptsRoot, logsBloom, gasUsed (and
 * requestsHash) are compared with the header. The result is the block's write operations, split
 * in two: what is keyed by the block's hash (header, body, receipts, total difficulty, new trie
 * nodes) — invisible to requests until the block is canonical — and what makes it canonical
 * (number → hash, head, transaction lookups, trace-index entries). Nothing is written here.
 *
 * Header rules are applied as `import.headerChecks` says for the chain's id (`validate.ts`); under
 * lenient checks the rules a block broke come back as its `deviations`, for the caller to report.
 *
 * The VM is kept between blocks (its caches follow the chain); after a failure, or before
 * executing a block whose parent is not the last block executed (a reorganisation), it is
 * rebuilt at the parent's state root.
 */
export interface ExecutedBlock {
  block: Block;
  /** Hash-keyed data: the block, its receipts, its total difficulty and the new trie nodes. */
  dataOps: BatchOp[];
  /** What makes it canonical: number → hash, transaction lookups, trace-index entries, head. */
  canonicalOps: BatchOp[];
  /** Header rules the block broke that lenient checks let through (empty under strict ones). */
  deviations: HeaderDeviation[];
}

export class BlockImporter {
  private readonly trieDb: TrieDB;
  private vm: VM | undefined;
  private indexer: TraceIndexer | undefined;
  /** The hash of the block the VM's state is at. */
  private vmAt: string | undefined;
  private readonly checks: 'strict' | 'lenient';

  constructor(
    private readonly chain: EthereumChain,
    private readonly settings: Config['import'],
  ) {
    this.trieDb = new TrieDB(chain.level);
    this.checks = headerChecksFor(settings.headerChecks, chain.common.chainId());
  }

  /** The header checks in force for this chain (`import.headerChecks` with `auto` resolved). */
  get headerChecks(): 'strict' | 'lenient' {
    return this.checks;
  }

  /** Forgets the VM (its state and the trace indexer's view of the index head). */
  reset(): void {
    this.trieDb.discard();
    this.vm = undefined;
    this.indexer = undefined;
    this.vmAt = undefined;
  }

  /**
   * Executes `block` on its parent, which must be stored (canonical or not). Throws
   * {@link InvalidBlockError} naming the block when it does not verify; nothing is kept of it.
   */
  async execute(block: Block): Promise<ExecutedBlock> {
    const { store, common } = this.chain;
    const number = block.header.number;
    const label = `block ${number} (${bytesToHex(block.hash())})`;
    const parentHash = block.header.parentHash;
    const parent = await store.blockByHash(parentHash);
    const parentTd = await store.totalDifficulty(parentHash);
    if (!parent || parentTd === undefined) throw new InvalidBlockError(`${label}: parent ${bytesToHex(parentHash)} is not stored`);
    let deviations: HeaderDeviation[];
    try {
      deviations = [...validateHeader(block.header, parent.header, this.checks), ...(await validateUncles(block, store, this.checks))];
    } catch (err) {
      if (err instanceof InvalidBlockError) throw new InvalidBlockError(`${label}: ${err.message}`);
      throw err;
    }
    if (this.vmAt !== bytesToHex(parentHash)) this.reset();
    if (!this.vm) {
      const sm = createStateManager(common, this.trieDb, {
        trieNodeCacheEntries: this.settings.trieNodeCacheEntries,
        root: parent.header.stateRoot,
        caches: true,
      });
      this.vm = await createVM({ common, stateManager: sm, blockchain: evmBlockchain(store) });
      this.indexer = createTraceIndexer(this.vm, this.chain.level);
    }
    let result: RunBlockResult;
    try {
      result = await runBlock(this.vm, { block, generate: true, skipHeaderValidation: true, setHardfork: true, clearCache: false });
    } catch (err) {
      this.reset();
      throw new InvalidBlockError(`${label}: execution failed: ${firstLine(err)}`);
    }
    const mismatch = compareResults(block, result);
    if (mismatch) {
      this.reset();
      throw new InvalidBlockError(`${label}: ${mismatch}`);
    }
    const dataOps: BatchOp[] = [];
    this.trieDb.drain(dataOps);
    dataOps.push(...store.blockDataOps(block, storedReceipts(result), parentTd + block.header.difficulty));
    const canonicalOps = [...store.canonicalOps(block), ...(await this.indexer!.blockOps(block))];
    this.vmAt = bytesToHex(block.hash());
    return { block, dataOps, canonicalOps, deviations };
  }
}

/** The receipts of an executed block as the store keeps them. */
function storedReceipts(result: RunBlockResult): StoredReceipt[] {
  return result.receipts.map((r, i) => {
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
