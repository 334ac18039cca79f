import type { Block } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import type { EthereumChain } from '../chain/open.js';
import type { BatchOp, Level } from '../db/database.js';
import { decodeNumber, encodeNumber, PREFIX, prefixed } from '../db/keys.js';
import { ReadOnlyTrieDB } from '../state/nodeCache.js';
import { TrieDB } from '../state/trieDb.js';
import type { TxCallTree } from './callTree.js';
import { flattenTx, nodeSides, rewardSides, type TraceSides } from './parity.js';
import { attachRecorder } from './recorder.js';
import { replayBlock, type TraceService } from './replay.js';
import { blockRewards, type Reward } from './rewards.js';

/**
 * The trace address index behind trace_filter (the idea of erigon's `traceFilterBitmapsV3`: a
 * from-set and a to-set per address, combined by union or intersection).
 *
 * Key schema (one new table, next to those in `db/keys.ts`):
 *
 * | prefix     | key                                  | value                                      |
 * |------------|--------------------------------------|--------------------------------------------|
 * | `t` (0x74) | address (20) ++ block number (8, BE) | 1 byte: bit 0 = on a trace's "from" side,  |
 * |            |                                      | bit 1 = on a trace's "to" side             |
 * | `m` + `traceIndexHead` | —                        | block number (8, BE): blocks 0..n are all  |
 * |            |                                      | indexed (absent = only the genesis)        |
 *
 * An address's blocks are one contiguous, ordered key range, so a reader scans exactly the
 * blocks the address touches in the requested range. The sides are those trace_filter matches
 * (docs/methods.md#trace_filter, {@link nodeSides}): call from/to, create from/new contract, suicide
 * contract/beneficiary, reward author (to side). Zero-value precompile calls, which are not
 * traces, are not indexed.
 *
 * Writing: the importer attaches {@link createTraceIndexer} to its VM and adds
 * `indexer.blockOps(block)` to each block's batch, so a block and its index entries commit
 * together. Databases imported before the index existed are completed by
 * {@link reindexTraceAddresses} (the `tracenode reindex-traces` command); until then trace_filter
 * stays correct by replaying every block above `traceIndexHead`.
 */

/** Key prefix of the trace address index: `t`. */
export const TRACE_INDEX_PREFIX = PREFIX.traceIndex;
/** Flag bits of an index entry. */
export const SIDE_FROM = 1;
export const SIDE_TO = 2;

const INDEX_HEAD_KEY = prefixed(PREFIX.meta, new TextEncoder().encode('traceIndexHead'));

/** `t ++ address ++ number`. */
export function traceIndexKey(address: Uint8Array, number: bigint): Uint8Array {
  const key = new Uint8Array(29);
  key[0] = TRACE_INDEX_PREFIX;
  key.set(address, 1);
  key.set(encodeNumber(number), 21);
  return key;
}

/** The from/to sides of every trace of a block (transactions, then rewards). */
export function blockSides(txs: readonly TxCallTree[], rewards: readonly Reward[]): TraceSides[] {
  const out: TraceSides[] = [];
  for (const tx of txs) for (const flat of flattenTx(tx.root)) out.push(nodeSides(flat.node));
  for (const reward of rewards) out.push(rewardSides(reward));
  return out;
}

/** The index entries of one block: one put per address, with its side flags merged. */
export function indexOpsForBlock(number: bigint, sides: Iterable<TraceSides>): BatchOp[] {
  const flags = new Map<string, { address: Uint8Array; flags: number }>();
  const add = (address: Uint8Array | undefined, flag: number): void => {
    if (!address) return;
    const key = bytesToHex(address);
    const entry = flags.get(key);
    if (entry) entry.flags |= flag;
    else flags.set(key, { address, flags: flag });
  };
  for (const side of sides) {
    add(side.from, SIDE_FROM);
    add(side.to, SIDE_TO);
  }
  return [...flags.values()].map(({ address, flags: f }) => ({ type: 'put' as const, key: traceIndexKey(address, number), value: Uint8Array.of(f) }));
}

/** The highest block up to which every block is indexed (0 when only the genesis is). */
export async function readIndexHead(level: Level): Promise<bigint> {
  const bytes = await level.get(INDEX_HEAD_KEY);
  return bytes ? decodeNumber(bytes) : 0n;
}

function indexHeadOp(number: bigint): BatchOp {
  return { type: 'put', key: INDEX_HEAD_KEY, value: encodeNumber(number) };
}

/** Produces a block's index operations during import (see {@link createTraceIndexer}). */
export interface TraceIndexer {
  /**
   * The index operations of `block`, which the VM has just executed with `runBlock`: its
   * entries, and the index-head update when the index is complete up to its parent. Call once
   * per executed block, after it verified; add the result to the block's batch.
   */
  blockOps(block: Block): Promise<BatchOp[]>;
}

/**
 * Attaches a trace recorder to the importer's VM. Create one per VM (a new VM needs a new
 * indexer). The recording costs little: no per-opcode hook, only per message.
 */
export function createTraceIndexer(vm: VM, level: Level): TraceIndexer {
  const recorder = attachRecorder(vm);
  const indexOps = createTraceIndexOps(level);
  return {
    async blockOps(block: Block): Promise<BatchOp[]> {
      const txs = recorder.take();
      if (txs.length !== block.transactions.length) {
        throw new Error(`trace indexer: recorded ${txs.length} transactions for block ${block.header.number}, which has ${block.transactions.length}`);
      }
      return indexOps(block, txs);
    },
  };
}

/**
 * The trace index operations of executed blocks, from call trees recorded elsewhere (an indexer
 * that shares one recorder with other indexes, `tracing/blockIndexer.ts`): the block's entries,
 * and the index-head update when the index is complete up to its parent.
 */
export function createTraceIndexOps(level: Level): (block: Block, txs: readonly TxCallTree[]) => Promise<BatchOp[]> {
  let head: bigint | undefined;
  return async (block, txs) => {
    const number = block.header.number;
    const ops = indexOpsForBlock(number, blockSides(txs, blockRewards(block)));
    head ??= await readIndexHead(level);
    if (head === number - 1n) {
      ops.push(indexHeadOp(number));
      head = number;
    }
    return ops;
  };
}

/** How trace_filter combines its address lists (docs/methods.md#trace_filter). */
export type AddressMode = 'union' | 'intersection';

/** A query against the index; at least one address list is non-empty. */
export interface IndexQuery {
  fromAddresses: readonly Uint8Array[];
  toAddresses: readonly Uint8Array[];
  mode: AddressMode;
  fromBlock: bigint;
  toBlock: bigint;
}

/**
 * The blocks in `[fromBlock, toBlock]` that may hold a matching trace, ascending, lazily (the
 * caller stops reading when it has enough). Only one list given: the blocks where one of its
 * addresses is on that side; both: union or intersection of the two block sets. A block of the
 * intersection may still hold no trace with both sides matching: the caller filters traces.
 */
export async function* indexedBlocks(level: Level, query: IndexQuery): AsyncGenerator<bigint> {
  const fromStreams = () => unique(query.fromAddresses).map((a) => addressBlocks(level, a, SIDE_FROM, query.fromBlock, query.toBlock));
  const toStreams = () => unique(query.toAddresses).map((a) => addressBlocks(level, a, SIDE_TO, query.fromBlock, query.toBlock));
  if (query.fromBlock > query.toBlock) return;
  if (query.mode === 'intersection' && query.fromAddresses.length > 0 && query.toAddresses.length > 0) {
    yield* intersect(mergeUnion(fromStreams()), mergeUnion(toStreams()));
  } else {
    yield* mergeUnion([...fromStreams(), ...toStreams()]);
  }
}

function unique(addresses: readonly Uint8Array[]): Uint8Array[] {
  const seen = new Map<string, Uint8Array>();
  for (const a of addresses) seen.set(bytesToHex(a), a);
  return [...seen.values()];
}

async function* addressBlocks(level: Level, address: Uint8Array, flag: number, from: bigint, to: bigint): AsyncGenerator<bigint> {
  const iterator = level.iterator({ gte: traceIndexKey(address, from), lte: traceIndexKey(address, to) });
  try {
    for await (const [key, value] of iterator) {
      if ((value[0] & flag) !== 0) yield decodeNumber(key.subarray(21));
    }
  } finally {
    await iterator.close();
  }
}

/** Ascending, de-duplicated merge of ascending streams. */
async function* mergeUnion(streams: AsyncGenerator<bigint>[]): AsyncGenerator<bigint> {
  try {
    const heads = await Promise.all(streams.map((s) => s.next()));
    let last: bigint | undefined;
    for (;;) {
      let min = -1;
      for (let i = 0; i < heads.length; i++) {
        if (!heads[i].done && (min < 0 || (heads[i].value as bigint) < (heads[min].value as bigint))) min = i;
      }
      if (min < 0) return;
      const value = heads[min].value as bigint;
      heads[min] = await streams[min].next();
      if (value !== last) {
        last = value;
        yield value;
      }
    }
  } finally {
    await Promise.all(streams.map((s) => s.return(undefined)));
  }
}

async function* intersect(a: AsyncGenerator<bigint>, b: AsyncGenerator<bigint>): AsyncGenerator<bigint> {
  try {
    let x = await a.next();
    let y = await b.next();
    while (!x.done && !y.done) {
      if (x.value < y.value) x = await a.next();
      else if (y.value < x.value) y = await b.next();
      else {
        yield x.value;
        x = await a.next();
        y = await b.next();
      }
    }
  } finally {
    await Promise.all([a.return(undefined), b.return(undefined)]);
  }
}

/**
 * Options of {@link reindexTraceAddresses}: where replays run, either through a trace service (a
 * serving node's, so the replayed blocks land in its cache) or directly, uncached, over a node
 * cache of `trieNodeEntries` trie nodes (`caches.trieNodeEntries`).
 */
export type ReindexOptions = {
  /** Called after each indexed block. */
  onBlock?: (number: bigint, head: bigint) => void;
  /** Checked between blocks: when aborted, stops after the current block (resumable). */
  signal?: AbortSignal;
} & ({ tracer: TraceService } | { trieNodeEntries: number });

/**
 * The call trees of a block for a reindex: from the serving node's trace service when it runs in
 * one, else replayed on a read-only view of the datadir's trie database (opened on first use).
 */
export function reindexTracer(chain: EthereumChain, opts: ReindexOptions): (block: Block) => Promise<TxCallTree[]> {
  let stateDb: ReadOnlyTrieDB | undefined;
  return async (block) => {
    if ('tracer' in opts) return (await opts.tracer.blockTraces(block)).txs;
    stateDb ??= new ReadOnlyTrieDB(new TrieDB(chain.level), opts.trieNodeEntries);
    return replayBlock(chain, stateDb, block);
  };
}

/**
 * Completes the address index of a database imported before the index existed (or whose import
 * ran without it): replays every block above `traceIndexHead` up to the chain head and writes
 * its entries together with the new index head, one batch per block. Resumable: a second run
 * continues where the first stopped. Intended as the `tracenode reindex-traces --datadir DIR`
 * command (run while the node is not serving: LevelDB allows one process per datadir).
 */
export async function reindexTraceAddresses(chain: EthereumChain, opts: ReindexOptions): Promise<{ indexed: number; head: bigint }> {
  const traceBlock = reindexTracer(chain, opts);
  const chainHead = (await chain.store.head())?.number ?? 0n;
  let head = await readIndexHead(chain.level);
  let indexed = 0;
  while (head < chainHead && !opts.signal?.aborted) {
    const number = head + 1n;
    const block = await chain.store.blockByNumber(number);
    if (!block) throw new Error(`database corrupt: canonical block ${number} missing`);
    const txs = await traceBlock(block);
    const ops = indexOpsForBlock(number, blockSides(txs, blockRewards(block)));
    ops.push(indexHeadOp(number));
    await chain.level.batch(ops);
    head = number;
    indexed++;
    opts.onBlock?.(number, chainHead);
  }
  return { indexed, head };
}
