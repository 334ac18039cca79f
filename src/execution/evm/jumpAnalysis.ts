import { LruCache } from '../../chain/lru.js';
import type { JumpAnalysis, JumpAnalyzer } from './interpreter.js';
import type { OpcodeEntry } from './opcodeTable.js';

/**
 * Jump analyses of contract code, cached by code hash. @ethereumjs/evm analyses the code of every
 * frame before it runs (valid JUMPDESTs, the value of each PUSH, the opcode table entry of each
 * byte): a pass over the whole code that, for a token contract, cost more than running its
 * `balanceOf`. The analysis depends only on the code and on the EVM's opcode table (its fork and
 * the opcode hooks wrapped into its entries), so it is kept per code hash and opcode table.
 *
 * Only code whose hash is known is cached: code read from the archived state, which
 * {@link noteCodeHash} labels with its hash as the call overlay loads it (the state read cache's
 * arrays are shared and never mutated). Code a call brings itself (state overrides, contracts it
 * creates, init code) is analysed as before.
 */

/** The default bound of a cache made without one (tests); the node's is `execution.jumpAnalysisCodeBytes`. */
export const JUMP_ANALYSIS_CODE_BYTES = 2 * 1024 * 1024;

/** Code arrays from the archived state, labelled with their code hash (a hex key). */
const codeHashes = new WeakMap<Uint8Array, string>();

/**
 * Labels `code` (an array from the state read cache, never mutated) with its code hash `hashKey`,
 * so that its jump analysis can be cached.
 */
export function noteCodeHash(code: Uint8Array, hashKey: string): void {
  if (code.length > 0 && codeHashes.get(code) !== hashKey) codeHashes.set(code, hashKey);
}

/** The analyses of one call engine, bounded by the code bytes they cover. */
export class JumpAnalysisCache {
  private readonly entries: LruCache<string, JumpAnalysis>;
  /** Opcode tables by identity, numbered for the cache key (each EVM has its own table). */
  private readonly tableIds = new WeakMap<OpcodeEntry[], number>();
  private nextTableId = 0;

  constructor(maxCodeBytes = JUMP_ANALYSIS_CODE_BYTES) {
    // Entries are weighed by code length; the entry cap only matters for tiny contracts.
    this.entries = new LruCache(Math.max(16, Math.floor(maxCodeBytes / 16)), {
      maxWeight: maxCodeBytes,
      weigh: (a) => a.jumps.length,
    });
  }

  /** The analyzer the EVMs' fast paths call. */
  readonly analyzer: JumpAnalyzer = (code, table, analyze) => {
    const hashKey = codeHashes.get(code);
    if (hashKey === undefined) return analyze();
    let tableId = this.tableIds.get(table);
    if (tableId === undefined) {
      tableId = this.nextTableId++;
      this.tableIds.set(table, tableId);
    }
    const key = `${tableId}:${hashKey}`;
    let analysis = this.entries.get(key);
    if (analysis === undefined) {
      analysis = analyze();
      this.entries.set(key, analysis);
    }
    return analysis;
  };

  /** Hits, misses and entries (for tests and metrics). */
  stats(): { hits: number; misses: number; entries: number } {
    return this.entries.stats();
  }
}

/**
 * An analyzer for a VM that executes blocks: analyses kept per code array (and opcode table) for
 * as long as the array lives. The importer's state manager hands out the same array for a
 * contract's code each time it reads it from its caches, and nothing writes into a code array, so
 * the analysis of that array stays right; code a block creates is a new array. No hashing and no
 * bound of its own: an analysis goes with its code array.
 */
export function codeArrayAnalyzer(): JumpAnalyzer {
  const byCode = new WeakMap<Uint8Array, WeakMap<OpcodeEntry[], JumpAnalysis>>();
  return (code, table, analyze) => {
    let byTable = byCode.get(code);
    if (byTable === undefined) {
      byTable = new WeakMap();
      byCode.set(code, byTable);
    }
    let analysis = byTable.get(table);
    if (analysis === undefined) {
      analysis = analyze();
      byTable.set(table, analysis);
    }
    return analysis;
  };
}
