import { type Block, type BlockHeader, createBlockFromRLP, createBlockHeaderFromRLP } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex, concatBytes } from '@ethereumjs/util';
import { hexKey } from '../codec/hex.js';
import { keccak256 } from '../codec/keccak.js';
import { rlpPayload } from '../codec/rlpPrefix.js';
import type { Config } from '../config/settings.js';
import type { BatchOp, Level } from '../db/database.js';
import { decodeNumber, encodeNumber, META, PREFIX, prefixed } from '../db/keys.js';
import { type CacheStats, LruCache } from './lru.js';
import { opBlockFromBytes } from './op/opBlock.js';
import { decodeReceipts, encodeReceipts, type StoredReceipt } from './receipts.js';

/** Positions in a header's RLP list (yellow paper order, every fork). */
const HEADER_LOGS_BLOOM_INDEX = 6;
const HEADER_TIMESTAMP_INDEX = 11;
/** Blocks read per step of a bloom scan. */
const BLOOM_SCAN_CHUNK = 512;
/** Position of the transaction list in a block's RLP list [header, transactions, uncles, …]. */
const BLOCK_TXS_INDEX = 1;

/** Where a transaction sits: its block and index. */
export interface TxLocation {
  blockHash: Uint8Array;
  index: number;
}

/** What a log scan needs of a canonical block: where it is, its bloom and its time. */
export interface BloomEntry {
  number: bigint;
  hash: Uint8Array;
  logsBloom: Uint8Array;
  timestamp: bigint;
}

/** The head of the canonical chain. */
export interface Head {
  number: bigint;
  hash: Uint8Array;
}

/**
 * The chain store: blocks, headers, receipts, total difficulty, transaction lookup, the canonical
 * number → hash index and the head pointer, all in LevelDB. Reads decode with the chain's Common
 * (hardfork set per block). Writes are returned as batch operations so that the importer commits a
 * block and its state in one atomic batch.
 */
/** The length of each block's stored RLP, by the block object decoded from it (`blockSize`). */
const encodedSizes = new WeakMap<Block, number>();

/**
 * The length of `block`'s RLP encoding (geth's `Block.Size()`): the stored encoding's length for a
 * block the store decoded, else the block encoded again (re-encoding every transaction was ~40 %
 * of eth_getBlockByNumber's CPU when done on every request).
 */
export function blockSize(block: Block): number {
  return encodedSizes.get(block) ?? block.serialize().length;
}

export class ChainStore {
  private cachedHead: Head | undefined;
  private cachedHeadHeader: BlockHeader | undefined;
  /** Bumped by invalidateHead, so a read that began before a write does not cache what it found. */
  private headGeneration = 0;
  // Decoding a header costs a Common copy and a hardfork lookup (~150 µs): every method that
  // resolves a block parameter pays it, so recent decoded headers and blocks are kept (both are
  // immutable, and keyed by hash, so never stale).
  private readonly headers: LruCache<string, BlockHeader>;
  private readonly blocks: LruCache<string, Block>;
  // Receipts by the size of their stored encoding (decoded they take ~3×): a log scan over a few
  // thousand ordinary blocks stays in memory, a few huge blocks cannot take it over.
  private readonly receiptLists: LruCache<string, { receipts: StoredReceipt[]; bytes: number }>;
  private readonly txHashLists: LruCache<string, Uint8Array[]>;
  // number → canonical hash; cleared with the head whenever the importer writes.
  private readonly canonicalHashes: LruCache<bigint, Uint8Array>;
  // number → canonical hash, logsBloom and timestamp for log scans (~400 bytes each); cleared
  // with the head.
  private readonly blooms: LruCache<number, BloomEntry>;

  /** A store over `level`; `caches` sizes its in-memory caches (the `caches` settings). */
  constructor(
    readonly level: Level,
    readonly common: Common,
    caches: Config['caches'],
    /** The chain is an OP-stack chain: its blocks may hold deposits, read by `op/opBlock.ts`. */
    readonly opStack = false,
  ) {
    this.headers = new LruCache(caches.headerEntries);
    this.blocks = new LruCache(caches.blockEntries);
    this.receiptLists = new LruCache(caches.txHashesEntries, { maxWeight: caches.receiptBytes, weigh: (entry) => entry.bytes });
    this.txHashLists = new LruCache(caches.txHashesEntries);
    this.canonicalHashes = new LruCache(caches.headerEntries);
    this.blooms = new LruCache(caches.bloomEntries);
  }

  /** Hits, misses and entries of each of the store's caches (for the metrics). */
  cacheStats(): Record<string, CacheStats> {
    return {
      headers: this.headers.stats(),
      blocks: this.blocks.stats(),
      receipts: this.receiptLists.stats(),
      tx_hashes: this.txHashLists.stats(),
      canonical_hashes: this.canonicalHashes.stats(),
      blooms: this.blooms.stats(),
    };
  }

  /** The head block, or undefined in an empty database (before `init`). */
  async head(): Promise<Head | undefined> {
    if (this.cachedHead) return this.cachedHead;
    const generation = this.headGeneration;
    const hash = await this.level.get(META.head);
    if (!hash) return undefined;
    const number = await this.numberOf(hash);
    if (number === undefined) throw new Error('database corrupt: head block has no number');
    const head = { number, hash };
    if (generation === this.headGeneration) this.cachedHead = head;
    return head;
  }

  /** The head block's header (what `latest` names on every request), cached with the head. */
  async headHeader(): Promise<BlockHeader | undefined> {
    if (this.cachedHeadHeader) return this.cachedHeadHeader;
    const generation = this.headGeneration;
    const head = await this.head();
    const header = head && (await this.headerByHash(head.hash));
    if (generation === this.headGeneration) this.cachedHeadHeader = header;
    return header;
  }

  /**
   * The header of `head`, a head this store returned (a request's snapshot): the cached head header
   * while `head` is still the current head, else read by hash.
   */
  headerOfHead(head: Head): Promise<BlockHeader | undefined> {
    return head === this.cachedHead ? this.headHeader() : this.headerByHash(head.hash);
  }

  /** Forgets the cached head and canonical hashes so the next read sees the database (after a write). */
  invalidateHead(): void {
    this.headGeneration++;
    this.cachedHead = undefined;
    this.cachedHeadHeader = undefined;
    this.canonicalHashes.clear();
    this.blooms.clear();
  }

  async canonicalHash(number: bigint): Promise<Uint8Array | undefined> {
    if (number < 0n || number >= 1n << 64n) return undefined;
    const hit = this.canonicalHashes.get(number);
    if (hit) return hit;
    const hash = await this.level.get(prefixed(PREFIX.canonical, encodeNumber(number)));
    if (!hash) return undefined;
    this.canonicalHashes.set(number, hash);
    return hash;
  }

  async numberOf(hash: Uint8Array): Promise<bigint | undefined> {
    const bytes = await this.level.get(prefixed(PREFIX.hashToNumber, hash));
    return bytes ? decodeNumber(bytes) : undefined;
  }

  async headerByHash(hash: Uint8Array): Promise<BlockHeader | undefined> {
    const key = hexKey(hash);
    const hit = this.headers.get(key) ?? this.blocks.get(key)?.header;
    if (hit) return hit;
    const rlp = await this.level.get(prefixed(PREFIX.header, hash));
    if (!rlp) return undefined;
    const header = createBlockHeaderFromRLP(rlp, { common: this.common, setHardfork: true });
    this.headers.set(key, header);
    return header;
  }

  async blockByHash(hash: Uint8Array): Promise<Block | undefined> {
    const key = hexKey(hash);
    const hit = this.blocks.get(key);
    if (hit) return hit;
    const rlp = await this.level.get(prefixed(PREFIX.body, hash));
    if (!rlp) return undefined;
    const block = this.opStack ? opBlockFromBytes(rlp, this.common) : createBlockFromRLP(rlp, { common: this.common, setHardfork: true });
    encodedSizes.set(block, rlp.length);
    this.blocks.set(key, block);
    return block;
  }

  /**
   * The hashes of a block's transactions, in order, straight from the stored RLP: a legacy
   * transaction is an RLP list and its hash is keccak of that list's encoding; a typed one
   * (EIP-2718) is a byte string `type || payload` and its hash is keccak of those bytes. Building
   * transaction objects costs a Common copy each (~0.5 ms), which a log scan over thousands of
   * blocks cannot afford.
   */
  async txHashes(blockHash: Uint8Array): Promise<Uint8Array[] | undefined> {
    const key = hexKey(blockHash);
    const hit = this.txHashLists.get(key);
    if (hit) return hit;
    const rlp = await this.level.get(prefixed(PREFIX.body, blockHash));
    if (!rlp) return undefined;
    const txs = (RLP.decode(rlp) as unknown[])[BLOCK_TXS_INDEX] as Array<Uint8Array | unknown[]>;
    const hashes = txs.map((tx) => keccak256(tx instanceof Uint8Array ? tx : RLP.encode(tx as Uint8Array[])));
    this.txHashLists.set(key, hashes);
    return hashes;
  }

  async blockByNumber(number: bigint): Promise<Block | undefined> {
    const hash = await this.canonicalHash(number);
    return hash ? this.blockByHash(hash) : undefined;
  }

  async headerByNumber(number: bigint): Promise<BlockHeader | undefined> {
    const hash = await this.canonicalHash(number);
    return hash ? this.headerByHash(hash) : undefined;
  }

  /**
   * The canonical blocks `from..to` with each header's logsBloom and timestamp, read from the raw
   * header RLP without decoding a header object (a range scan tests blooms first and decodes only
   * the blocks that may match). Read in chunks of BLOOM_SCAN_CHUNK blocks (one range read of the
   * canonical index and one getMany of headers each); chunks seen before come from memory.
   */
  async *canonicalBlooms(from: bigint, to: bigint): AsyncGenerator<BloomEntry> {
    const chunk = BigInt(BLOOM_SCAN_CHUNK);
    for (let start = from; start <= to; start += chunk) {
      const end = start + chunk - 1n < to ? start + chunk - 1n : to;
      yield* this.cachedBlooms(start, end) ?? (await this.readBlooms(start, end));
    }
  }

  /** The entries of `start..end` if every one is in memory. */
  private cachedBlooms(start: bigint, end: bigint): BloomEntry[] | undefined {
    const out: BloomEntry[] = [];
    for (let n = Number(start); n <= Number(end); n++) {
      const hit = this.blooms.get(n);
      if (!hit) return undefined;
      out.push(hit);
    }
    return out;
  }

  private async readBlooms(start: bigint, end: bigint): Promise<BloomEntry[]> {
    const range = { gte: prefixed(PREFIX.canonical, encodeNumber(start)), lte: prefixed(PREFIX.canonical, encodeNumber(end)) };
    const entries = await this.level.iterator(range).all();
    const headers = await this.level.getMany(entries.map(([, hash]) => prefixed(PREFIX.header, hash)));
    return entries.map(([key, hash], i) => {
      const rlp = headers[i];
      if (!rlp) throw new Error(`database corrupt: header ${bytesToHex(hash)} missing`);
      const [logsBloom, timestamp] = headerBloomAndTimestamp(rlp);
      const entry = { number: decodeNumber(key.subarray(1)), hash, logsBloom, timestamp };
      this.blooms.set(Number(entry.number), entry);
      return entry;
    });
  }

  /** A block's receipts (shared, cached: callers must not mutate them). */
  async receipts(blockHash: Uint8Array): Promise<StoredReceipt[] | undefined> {
    const key = hexKey(blockHash);
    const hit = this.receiptLists.get(key);
    if (hit) return hit.receipts;
    const bytes = await this.level.get(prefixed(PREFIX.receipts, blockHash));
    if (!bytes) return undefined;
    const receipts = decodeReceipts(bytes);
    this.receiptLists.set(key, { receipts, bytes: bytes.length });
    return receipts;
  }

  async totalDifficulty(blockHash: Uint8Array): Promise<bigint | undefined> {
    const bytes = await this.level.get(prefixed(PREFIX.td, blockHash));
    return bytes ? bytesToBigInt(bytes) : undefined;
  }

  async txLocation(txHash: Uint8Array): Promise<TxLocation | undefined> {
    const bytes = await this.level.get(prefixed(PREFIX.txLookup, txHash));
    if (!bytes) return undefined;
    return { blockHash: bytes.subarray(0, 32), index: new DataView(bytes.buffer, bytes.byteOffset + 32, 4).getUint32(0) };
  }

  /** The operations that store a verified block as the new canonical head. */
  blockOps(block: Block, receipts: readonly StoredReceipt[], td: bigint): BatchOp[] {
    return [...this.blockDataOps(block, receipts, td), ...this.canonicalOps(block)];
  }

  /** What a block stores under its hash: header, body, receipts, total difficulty, number. Invisible until canonical. */
  blockDataOps(block: Block, receipts: readonly StoredReceipt[], td: bigint): BatchOp[] {
    const hash = block.hash();
    return [
      { type: 'put', key: prefixed(PREFIX.header, hash), value: block.header.serialize() },
      { type: 'put', key: prefixed(PREFIX.body, hash), value: block.serialize() },
      { type: 'put', key: prefixed(PREFIX.receipts, hash), value: encodeReceipts(receipts) },
      { type: 'put', key: prefixed(PREFIX.td, hash), value: bigIntToUnpaddedBytes(td) },
      { type: 'put', key: prefixed(PREFIX.hashToNumber, hash), value: encodeNumber(block.header.number) },
    ];
  }

  /** What makes a stored block the canonical one at its height and the head: number → hash, head, its transactions' lookups. */
  canonicalOps(block: Block): BatchOp[] {
    const hash = block.hash();
    const ops: BatchOp[] = [
      { type: 'put', key: prefixed(PREFIX.canonical, encodeNumber(block.header.number)), value: hash },
      { type: 'put', key: META.head, value: hash },
    ];
    block.transactions.forEach((tx, i) => {
      const index = new Uint8Array(4);
      new DataView(index.buffer).setUint32(0, i);
      ops.push({ type: 'put', key: prefixed(PREFIX.txLookup, tx.hash()), value: concatBytes(hash, index) });
    });
    return ops;
  }

  /**
   * What takes the canonical chain back to `ancestor` (a stored canonical block): the canonical
   * entries above it removed, the lookups of the transactions of the `dropped` blocks (those
   * above it, in any order) removed, the head set to it. The dropped blocks stay stored under
   * their hashes, as geth keeps side chains. Put in the same batch as the new branch's
   * canonical operations, which come after these (a transaction in both branches is looked up in
   * the new one).
   */
  rewindOps(ancestor: { number: bigint; hash: Uint8Array }, dropped: readonly Block[]): BatchOp[] {
    const ops: BatchOp[] = [];
    for (const block of dropped) {
      if (block.header.number <= ancestor.number) throw new Error(`rewindOps: block ${block.header.number} is not above the ancestor ${ancestor.number}`);
      ops.push({ type: 'del', key: prefixed(PREFIX.canonical, encodeNumber(block.header.number)) });
      for (const tx of block.transactions) ops.push({ type: 'del', key: prefixed(PREFIX.txLookup, tx.hash()) });
    }
    ops.push({ type: 'put', key: META.head, value: ancestor.hash });
    return ops;
  }
}

/**
 * A header's logsBloom (a view into `rlp`) and timestamp, found by walking the RLP item prefixes of
 * the list without decoding the other fields: a range scan reads thousands of headers and a full
 * decode of each (seventeen-odd fields copied) was a fifth of its time.
 */
export function headerBloomAndTimestamp(rlp: Uint8Array): [Uint8Array, bigint] {
  let [offset] = rlpPayload(rlp, 0);
  let bloom: Uint8Array | undefined;
  for (let field = 0; field <= HEADER_TIMESTAMP_INDEX; field++) {
    const [start, end] = rlpPayload(rlp, offset);
    // Stored headers are written by the importer: an item running past the end means corruption.
    if (!(end <= rlp.length)) throw new Error('database corrupt: header RLP ends early');
    if (field === HEADER_LOGS_BLOOM_INDEX) bloom = rlp.subarray(start, end);
    if (field === HEADER_TIMESTAMP_INDEX) return [bloom as Uint8Array, bytesToBigInt(rlp.subarray(start, end))];
    offset = end;
  }
  throw new Error('unreachable');
}
