import { type Block, type BlockHeader, createBlockFromRLP, createBlockHeaderFromRLP } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex, concatBytes } from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak.js';
import type { BatchOp, Level } from '../db/database.js';
import { META, PREFIX, decodeNumber, encodeNumber, prefixed } from '../db/keys.js';
import { LruCache } from './lru.js';
import { type StoredReceipt, decodeReceipts, encodeReceipts } from './receipts.js';

/** Positions in a header's RLP list (yellow paper order, every fork). */
const HEADER_LOGS_BLOOM_INDEX = 6;
const HEADER_TIMESTAMP_INDEX = 11;
/** Blocks read per step of a bloom scan. */
const BLOOM_SCAN_CHUNK = 512;

/** Decoded headers kept in memory (a header object is a few KiB). */
export const HEADER_CACHE_ENTRIES = 4096;
/** Decoded blocks kept in memory (bounded by count; blocks of the demo and test chains are small). */
export const BLOCK_CACHE_ENTRIES = 256;
/** Decoded receipts kept in memory, counted by their stored (RLP) size; decoded they take ~3×. */
export const RECEIPT_CACHE_BYTES = 32 * 1024 * 1024;
/** Transaction-hash lists kept in memory (32 bytes a transaction: a log scan touches many blocks). */
export const TX_HASHES_CACHE_ENTRIES = 16_384;
/** Position of the transaction list in a block's RLP list [header, transactions, uncles, …]. */
const BLOCK_TXS_INDEX = 1;

/** Where a transaction sits: its block and index. */
export interface TxLocation {
  blockHash: Uint8Array;
  index: number;
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
export class ChainStore {
  private cachedHead: Head | undefined;
  // Decoding a header costs a Common copy and a hardfork lookup (~150 µs): every method that
  // resolves a block parameter pays it, so recent decoded headers and blocks are kept (both are
  // immutable, and keyed by hash, so never stale).
  private readonly headers = new LruCache<string, BlockHeader>(HEADER_CACHE_ENTRIES);
  private readonly blocks = new LruCache<string, Block>(BLOCK_CACHE_ENTRIES);
  // Receipts by the size of their stored encoding: a log scan over a few thousand ordinary blocks
  // stays in memory, a few huge blocks cannot take it over.
  private readonly receiptLists = new LruCache<string, { receipts: StoredReceipt[]; bytes: number }>(TX_HASHES_CACHE_ENTRIES, {
    maxWeight: RECEIPT_CACHE_BYTES,
    weigh: (entry) => entry.bytes,
  });
  private readonly txHashLists = new LruCache<string, Uint8Array[]>(TX_HASHES_CACHE_ENTRIES);
  // number → canonical hash; cleared with the head whenever the importer writes.
  private readonly canonicalHashes = new LruCache<bigint, Uint8Array>(HEADER_CACHE_ENTRIES);

  constructor(
    readonly level: Level,
    readonly common: Common,
  ) {}

  /** The head block, or undefined in an empty database (before `init`). */
  async head(): Promise<Head | undefined> {
    if (this.cachedHead) return this.cachedHead;
    const hash = await this.level.get(META.head);
    if (!hash) return undefined;
    const number = await this.numberOf(hash);
    if (number === undefined) throw new Error('database corrupt: head block has no number');
    this.cachedHead = { number, hash };
    return this.cachedHead;
  }

  /** Forgets the cached head and canonical hashes so the next read sees the database (after a write). */
  invalidateHead(): void {
    this.cachedHead = undefined;
    this.canonicalHashes.clear();
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
    const key = bytesToHex(hash);
    const hit = this.headers.get(key) ?? this.blocks.get(key)?.header;
    if (hit) return hit;
    const rlp = await this.level.get(prefixed(PREFIX.header, hash));
    if (!rlp) return undefined;
    const header = createBlockHeaderFromRLP(rlp, { common: this.common, setHardfork: true });
    this.headers.set(key, header);
    return header;
  }

  async blockByHash(hash: Uint8Array): Promise<Block | undefined> {
    const key = bytesToHex(hash);
    const hit = this.blocks.get(key);
    if (hit) return hit;
    const rlp = await this.level.get(prefixed(PREFIX.body, hash));
    if (!rlp) return undefined;
    const block = createBlockFromRLP(rlp, { common: this.common, setHardfork: true });
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
    const key = bytesToHex(blockHash);
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
   * The canonical blocks `from..to` with each header's logsBloom and timestamp, read from the raw header RLP
   * without decoding a header object (a range scan tests blooms first and decodes only the blocks
   * that may match).
   */
  async *canonicalBlooms(from: bigint, to: bigint): AsyncGenerator<{ number: bigint; hash: Uint8Array; logsBloom: Uint8Array; timestamp: bigint }> {
    const range = { gte: prefixed(PREFIX.canonical, encodeNumber(from)), lte: prefixed(PREFIX.canonical, encodeNumber(to)) };
    const iterator = this.level.iterator(range);
    try {
      // Chunks: one iterator step and one getMany per BLOOM_SCAN_CHUNK blocks, not two reads per block.
      for (;;) {
        const entries = await iterator.nextv(BLOOM_SCAN_CHUNK);
        if (entries.length === 0) return;
        const headers = await this.level.getMany(entries.map(([, hash]) => prefixed(PREFIX.header, hash)));
        for (let i = 0; i < entries.length; i++) {
          const [key, hash] = entries[i];
          const rlp = headers[i];
          if (!rlp) throw new Error(`database corrupt: header ${bytesToHex(hash)} missing`);
          const fields = RLP.decode(rlp) as Uint8Array[];
          yield { number: decodeNumber(key.subarray(1)), hash, logsBloom: fields[HEADER_LOGS_BLOOM_INDEX], timestamp: bytesToBigInt(fields[HEADER_TIMESTAMP_INDEX]) };
        }
      }
    } finally {
      await iterator.close();
    }
  }

  /** A block's receipts (shared, cached: callers must not mutate them). */
  async receipts(blockHash: Uint8Array): Promise<StoredReceipt[] | undefined> {
    const key = bytesToHex(blockHash);
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
    const hash = block.hash();
    const number = encodeNumber(block.header.number);
    const ops: BatchOp[] = [
      { type: 'put', key: prefixed(PREFIX.header, hash), value: block.header.serialize() },
      { type: 'put', key: prefixed(PREFIX.body, hash), value: block.serialize() },
      { type: 'put', key: prefixed(PREFIX.receipts, hash), value: encodeReceipts(receipts) },
      { type: 'put', key: prefixed(PREFIX.td, hash), value: bigIntToUnpaddedBytes(td) },
      { type: 'put', key: prefixed(PREFIX.hashToNumber, hash), value: number },
      { type: 'put', key: prefixed(PREFIX.canonical, number), value: hash },
      { type: 'put', key: META.head, value: hash },
    ];
    block.transactions.forEach((tx, i) => {
      const index = new Uint8Array(4);
      new DataView(index.buffer).setUint32(0, i);
      ops.push({ type: 'put', key: prefixed(PREFIX.txLookup, tx.hash()), value: concatBytes(hash, index) });
    });
    return ops;
  }
}
