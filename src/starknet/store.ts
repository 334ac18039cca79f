import { type BatchOp, type Level, openDatabase } from '../db/database.js';
import { META } from '../db/keys.js';
import { DomainError } from '../errors/domainError.js';
import { MAX_BLOCK_NUMBER, type StarknetBlockHeader, type StarknetBlockInput } from './block.js';
import { type BlockRecord, headerFieldsOf, type PreparedBlock, prepareBlock, removalOps } from './blockOps.js';
import { readBlockTransactionHashes, readBlockTransactions, readTransaction, type StoredTransaction, transactionPosition } from './bodies.js';
import { NoBlocksError } from './errors.js';
import { decodeEventRecord, type StoredEvent } from './eventRecord.js';
import { trustedFeltToHex64 } from './felt.js';
import {
  blockHashKey,
  blockKey,
  DATADIR_KIND_KEY,
  DATADIR_KIND_STARKNET,
  encodeBlockNumber,
  eventKey,
  l1AcceptedKey,
  readBlockNumber,
  SN_PREFIX,
  STARKNET_CHAIN_ID_KEY,
  STARKNET_FROM_KEY,
  STARKNET_SCHEMA_KEY,
  STARKNET_SCHEMA_VERSION,
  STARKNET_STATE_RANGE_KEY,
} from './keys.js';
import { readStateUpdate } from './stateIndex.js';

/**
 * The blocks whose state the store holds: every block from `from` to `through` has its state
 * update stored (`through` < `from` when a reorganisation left none).
 */
export interface StateRange {
  from: number;
  through: number;
}

/** A stored block: header plus counts. */
export interface StoredBlock extends StarknetBlockHeader {
  transactionCount: number;
  eventCount: number;
}

/** Why {@link StarknetStore.importBlock} skipped a block. */
export type ImportBlockResult =
  | { status: 'imported'; events: number }
  | { status: 'skipped'; reason: 'present' | 'number taken' | 'hash taken'; storedHash?: string };

/** A datadir that is not (or not yet) a Starknet datadir of this schema. */
export class DatadirKindError extends DomainError {
  override readonly name = 'DatadirKindError';
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/**
 * Opens the LevelDB database of a Starknet datadir. With `create`, an empty datadir becomes a
 * Starknet one (the kind and schema keys are written); without it, an empty datadir is refused.
 * An Ethereum datadir, a datadir of another kind or schema, or one with unknown content is always
 * refused, so `import-starknet` can never write into an Ethereum chain and vice versa.
 */
export async function openStarknetStore(datadir: string, opts: { create?: boolean; blockCacheEntries: number }): Promise<StarknetStore> {
  const level = await openDatabase(datadir);
  try {
    await checkKind(level, datadir, opts.create === true);
    return new StarknetStore(level, opts.blockCacheEntries);
  } catch (err) {
    await level.close();
    throw err;
  }
}

async function checkKind(level: Level, datadir: string, create: boolean): Promise<void> {
  const kind = await level.get(DATADIR_KIND_KEY);
  if (kind !== undefined) {
    const name = utf8Decoder.decode(kind);
    if (name !== DATADIR_KIND_STARKNET) throw new DatadirKindError(`datadir ${datadir} holds a ${name} chain, not a Starknet one`);
    const schema = await level.get(STARKNET_SCHEMA_KEY);
    const version = schema?.length === 4 ? new DataView(schema.buffer, schema.byteOffset, 4).getUint32(0) : undefined;
    // Schema 1 (no transactions, receipts nor state updates) opens as is: its blocks' events and
    // headers are served, and the reads that need what it did not keep say so; blocks written from
    // now on keep them.
    if (version === 1) await level.batch([schemaVersionOp()]);
    else if (version !== STARKNET_SCHEMA_VERSION) {
      throw new DatadirKindError(`datadir ${datadir} has Starknet schema ${version ?? 'unknown'}, this tracenode reads ${STARKNET_SCHEMA_VERSION}`);
    }
    return;
  }
  const ethereum = await level.getMany([META.schema, META.genesis, META.head]);
  if (ethereum.some((v) => v !== undefined)) throw new DatadirKindError(`datadir ${datadir} holds an Ethereum chain, not a Starknet one`);
  const anyKey = await level.keys({ limit: 1 }).all();
  if (anyKey.length > 0) throw new DatadirKindError(`datadir ${datadir} is not a Starknet datadir (unknown content)`);
  if (!create) throw new DatadirKindError(`datadir ${datadir} has no Starknet blocks: run \`tracenode import-starknet --datadir ${datadir} blocks.ndjson\``);
  await level.batch([{ type: 'put', key: DATADIR_KIND_KEY, value: utf8Encoder.encode(DATADIR_KIND_STARKNET) }, schemaVersionOp()]);
}

/** The put of this schema's version. */
function schemaVersionOp(): BatchOp {
  const schema = new Uint8Array(4);
  new DataView(schema.buffer).setUint32(0, STARKNET_SCHEMA_VERSION);
  return { type: 'put', key: STARKNET_SCHEMA_KEY, value: schema };
}

/**
 * The Starknet block and event store (key schema in `keys.ts`). It holds blocks (hash, number,
 * parent, timestamp, status), every event with its position, and the indexes the event filter
 * uses: by block, by contract, by the i-th key (i < 16), and by contract + first key.
 *
 * Each block is written in one atomic batch with all its events and index entries, so a crash
 * leaves whole blocks only. Imported blocks need not be contiguous (a block number may be missing)
 * nor arrive in order; a block whose number or hash is already stored is skipped. A follower
 * appends blocks on top of the head and replaces a branch in one batch ({@link switchBranch}).
 */
export class StarknetStore {
  private latestCache: number | null | undefined;
  private l1Cache: number | null | undefined;
  private stateRangeCache: StateRange | null | undefined;
  private readonly blockCache = new Map<number, StoredBlock>();
  private readonly blockCacheEntries: number;

  /**
   * A store over `level`, keeping up to `blockCacheEntries` blocks decoded (the
   * `starknet.blockCacheEntries` setting). A block record changes only when a reorganisation
   * replaces it ({@link switchBranch}), which empties the cache.
   */
  constructor(
    readonly level: Level,
    blockCacheEntries: number,
  ) {
    this.blockCacheEntries = blockCacheEntries;
  }

  /** The highest stored block number, or undefined when there is no block. */
  async latestNumber(): Promise<number | undefined> {
    if (this.latestCache === undefined) this.latestCache = (await this.lastNumberIn(SN_PREFIX.block)) ?? null;
    return this.latestCache ?? undefined;
  }

  /** The highest stored block number; {@link NoBlocksError} when there is no block. */
  async requireLatestNumber(): Promise<number> {
    const latest = await this.latestNumber();
    if (latest === undefined) throw new NoBlocksError();
    return latest;
  }

  /** The highest stored block whose status is ACCEPTED_ON_L1, or undefined. */
  async l1AcceptedNumber(): Promise<number | undefined> {
    if (this.l1Cache === undefined) this.l1Cache = (await this.lastNumberIn(SN_PREFIX.l1Accepted)) ?? null;
    return this.l1Cache ?? undefined;
  }

  private async lastNumberIn(prefix: number): Promise<number | undefined> {
    const keys = await this.level.keys({ gte: Uint8Array.of(prefix), lt: Uint8Array.of(prefix + 1), reverse: true, limit: 1 }).all();
    return keys.length === 1 ? readBlockNumber(keys[0], 1) : undefined;
  }

  /** A stored block by number. */
  async block(number: number): Promise<StoredBlock | undefined> {
    const cached = this.blockCache.get(number);
    if (cached) return cached;
    if (!Number.isSafeInteger(number) || number < 0 || number > MAX_BLOCK_NUMBER) return undefined;
    const bytes = await this.level.get(blockKey(number));
    return bytes ? this.remember(number, bytes) : undefined;
  }

  /** Stored blocks by number, in one read for those not cached (undefined where absent). */
  async blocks(numbers: readonly number[]): Promise<(StoredBlock | undefined)[]> {
    const found = new Map<number, StoredBlock>();
    const missing: number[] = [];
    for (const n of new Set(numbers)) {
      const cached = this.blockCache.get(n);
      if (cached) found.set(n, cached);
      else if (Number.isSafeInteger(n) && n >= 0 && n <= MAX_BLOCK_NUMBER) missing.push(n);
    }
    if (missing.length > 0) {
      const values = await this.level.getMany(missing.map(blockKey));
      for (const [i, bytes] of values.entries()) if (bytes) found.set(missing[i], this.remember(missing[i], bytes));
    }
    return numbers.map((n) => found.get(n));
  }

  private remember(number: number, bytes: Uint8Array): StoredBlock {
    const r = JSON.parse(utf8Decoder.decode(bytes)) as BlockRecord;
    const block: StoredBlock = {
      number,
      hash: r.hash,
      parentHash: r.parent,
      timestamp: r.time,
      status: r.status,
      transactionCount: r.txs,
      eventCount: r.events,
      fields: headerFieldsOf(r),
    };
    if (this.blockCache.size >= this.blockCacheEntries) this.blockCache.clear();
    this.blockCache.set(number, block);
    return block;
  }

  /** Every event of stored block `number`, in emission order (none for an unknown block). */
  async blockEvents(number: number): Promise<StoredEvent[]> {
    if (!Number.isSafeInteger(number) || number < 0 || number > MAX_BLOCK_NUMBER) return [];
    const values = await this.level.values({ gte: eventKey(number, 0), lt: eventKey(number + 1, 0) }).all();
    return values.map(decodeEventRecord);
  }

  /** Every transaction of stored block `number` with its receipt, in block order (`bodies.ts`). */
  transactions(number: number): Promise<StoredTransaction[]> {
    return readBlockTransactions(this.level, number);
  }

  /** The transaction hashes of stored block `number`, in block order. */
  transactionHashes(number: number): Promise<string[]> {
    return readBlockTransactionHashes(this.level, number);
  }

  /** Transaction `index` of stored block `number` with its receipt, or undefined. */
  transaction(number: number, index: number): Promise<StoredTransaction | undefined> {
    return readTransaction(this.level, number, index);
  }

  /** The stored transaction with this hash (32-byte value) and its block's number, or undefined. */
  async transactionByHash(hash: Uint8Array): Promise<{ block: number; tx: StoredTransaction } | undefined> {
    const at = await transactionPosition(this.level, hash);
    const tx = at && (await readTransaction(this.level, at.block, at.index));
    return at && tx && { block: at.block, tx };
  }

  /** The state update stored with block `number` (as its source gave it), or undefined. */
  stateUpdate(number: number): Promise<Record<string, unknown> | undefined> {
    return readStateUpdate(this.level, number);
  }

  /** The number of the stored block with this hash (32-byte value), or undefined. */
  async blockNumberByHash(hash: Uint8Array): Promise<number | undefined> {
    const bytes = await this.level.get(blockHashKey(hash));
    return bytes ? readBlockNumber(bytes, 0) : undefined;
  }

  /**
   * Writes one block with its events and index entries in a single batch, unless its number or
   * its hash is already stored (then nothing is written and the reason is returned). The block
   * must be valid (felts checked, as the NDJSON importer does).
   */
  async importBlock(block: StarknetBlockInput): Promise<ImportBlockResult> {
    return this.commitBlock(prepareBlock(block));
  }

  /**
   * The write half of {@link importBlock}, for a block built with {@link prepareBlock}: the
   * importer prepares the next block (CPU work) while this one's batch is being written.
   * Calls must not overlap: the presence check reads what the previous call wrote.
   */
  async commitBlock(prepared: PreparedBlock): Promise<ImportBlockResult> {
    const { block } = prepared;
    const [byNumber, byHash] = await this.level.getMany([blockKey(block.number), blockHashKey(prepared.hashBytes)]);
    if (byNumber !== undefined) {
      const stored = await this.block(block.number);
      const same = stored !== undefined && trustedFeltToHex64(stored.hash) === trustedFeltToHex64(block.hash);
      return same ? { status: 'skipped', reason: 'present' } : { status: 'skipped', reason: 'number taken', storedHash: stored?.hash };
    }
    if (byHash !== undefined) return { status: 'skipped', reason: 'hash taken' };
    const range = await this.stateRangeAfter(prepared);
    await this.level.batch(range ? [...prepared.ops, range.op] : prepared.ops);
    if (range) this.stateRangeCache = range.range;
    const latest = await this.latestNumber();
    if (latest === undefined || block.number > latest) this.latestCache = block.number;
    if (block.status === 'ACCEPTED_ON_L1') {
      const l1 = await this.l1AcceptedNumber();
      if (l1 === undefined || block.number > l1) this.l1Cache = block.number;
    }
    return { status: 'imported', events: prepared.events };
  }

  /** The chain id recorded when the datadir first followed an upstream (`0x…`), or undefined. */
  async chainId(): Promise<string | undefined> {
    const bytes = await this.level.get(STARKNET_CHAIN_ID_KEY);
    return bytes && utf8Decoder.decode(bytes);
  }

  /** Records the followed upstream's chain id. */
  async setChainId(chainId: string): Promise<void> {
    await this.level.put(STARKNET_CHAIN_ID_KEY, utf8Encoder.encode(chainId));
  }

  /**
   * Stored blocks at or below `number`, highest first, at most `limit` (a reorganisation walks
   * back through them; the datadir may have gaps).
   */
  async blocksDownFrom(number: number, limit: number): Promise<StoredBlock[]> {
    if (number < 0) return [];
    const keys = await this.level.keys({ gte: blockKey(0), lte: blockKey(Math.min(number, MAX_BLOCK_NUMBER)), reverse: true, limit }).all();
    const blocks = await this.blocks(keys.map((k) => readBlockNumber(k, 1)));
    return blocks.filter((b): b is StoredBlock => b !== undefined);
  }

  /** The highest stored block's number and hash, or undefined when there is no block. */
  async head(): Promise<{ number: number; hash: string } | undefined> {
    const latest = await this.latestNumber();
    if (latest === undefined) return undefined;
    const block = await this.block(latest);
    return block && { number: latest, hash: block.hash };
  }

  /**
   * Writes a followed block on top of the head in one batch. The follower has checked that its
   * parent is the head; unlike {@link commitBlock} nothing is skipped.
   */
  async appendBlock(prepared: PreparedBlock): Promise<void> {
    const range = await this.stateRangeAfter(prepared);
    await this.level.batch(range ? [...prepared.ops, range.op] : prepared.ops);
    if (range) this.stateRangeCache = range.range;
    this.latestCache = prepared.block.number;
    if (prepared.block.status === 'ACCEPTED_ON_L1') this.l1Cache = prepared.block.number;
  }

  /**
   * Marks stored block `number` as the highest accepted on L1 (an `L` entry; its record keeps the
   * status it was stored with, which nothing serves), as a followed upstream reports it later.
   * False when the block is not stored or not above the current L1-accepted block.
   */
  async markL1Accepted(number: number): Promise<boolean> {
    const current = await this.l1AcceptedNumber();
    if ((current !== undefined && number <= current) || !(await this.block(number))) return false;
    await this.level.put(l1AcceptedKey(number), new Uint8Array(0));
    this.l1Cache = number;
    return true;
  }

  /**
   * A reorganisation: in ONE batch, removes every stored block above `ancestor` (with its events
   * and index entries) and writes `blocks`, the upstream's branch from `ancestor + 1`. A reader
   * sees the old branch or the new one, never a mix; a crash leaves one of the two. Returns the
   * dropped blocks, highest first.
   */
  async switchBranch(ancestor: number, blocks: readonly PreparedBlock[]): Promise<Array<{ number: number; hash: string }>> {
    const removal = await removalOps(this.level, ancestor);
    const range = switchedStateRange(await this.stateRange(), ancestor, blocks);
    const rangeOps: BatchOp[] = range === undefined ? [] : [{ type: 'put', key: STARKNET_STATE_RANGE_KEY, value: utf8Encoder.encode(JSON.stringify(range)) }];
    // Deletes first: the new branch reuses the dropped blocks' numbers, so their keys.
    await this.level.batch([...removal.ops, ...blocks.flatMap((b) => b.ops), ...rangeOps]);
    this.latestCache = undefined;
    this.l1Cache = undefined;
    this.stateRangeCache = undefined;
    this.blockCache.clear();
    return removal.dropped;
  }

  /** The blocks whose state is held, or undefined when no block has its state update stored. */
  async stateRange(): Promise<StateRange | undefined> {
    if (this.stateRangeCache === undefined) {
      const bytes = await this.level.get(STARKNET_STATE_RANGE_KEY);
      this.stateRangeCache = bytes ? (JSON.parse(utf8Decoder.decode(bytes)) as StateRange) : null;
    }
    return this.stateRangeCache ?? undefined;
  }

  /**
   * The state range once `prepared` is written, with its put, when the block changes it: the
   * first block written with its state update starts the range, and each next block with one
   * extends it (a block without, or out of order, ends its growth).
   */
  private async stateRangeAfter(prepared: PreparedBlock): Promise<{ range: StateRange; op: BatchOp } | undefined> {
    if (!prepared.hasState) return undefined;
    const n = prepared.block.number;
    const current = await this.stateRange();
    let range: StateRange;
    if (current === undefined) range = { from: n, through: n };
    else if (n === current.through + 1) range = { from: current.from, through: n };
    else return undefined;
    return { range, op: { type: 'put', key: STARKNET_STATE_RANGE_KEY, value: utf8Encoder.encode(JSON.stringify(range)) } };
  }

  /** The block an empty datadir follows from (`--from`), or undefined (block 0). */
  async fromBlock(): Promise<number | undefined> {
    const bytes = await this.level.get(STARKNET_FROM_KEY);
    return bytes ? readBlockNumber(bytes, 0) : undefined;
  }

  /** Records the block an empty datadir follows from. */
  async setFromBlock(number: number): Promise<void> {
    await this.level.put(STARKNET_FROM_KEY, encodeBlockNumber(number));
  }

  /** The lowest stored block, or undefined when there is none. */
  async firstBlock(): Promise<StoredBlock | undefined> {
    const keys = await this.level.keys({ gte: blockKey(0), lt: Uint8Array.of(SN_PREFIX.block + 1), limit: 1 }).all();
    return keys.length === 1 ? this.block(readBlockNumber(keys[0], 1)) : undefined;
  }

  async close(): Promise<void> {
    await this.level.close();
  }
}

/**
 * The state range after a branch switch above `ancestor` (undefined: unchanged): the dropped
 * blocks leave it, and the new branch's blocks, each with its state update, extend it again.
 */
function switchedStateRange(current: StateRange | undefined, ancestor: number, blocks: readonly PreparedBlock[]): StateRange | undefined {
  if (current === undefined) {
    const first = blocks[0];
    if (first === undefined || !first.hasState) return undefined;
    current = { from: first.block.number, through: first.block.number - 1 };
  } else if (current.through < ancestor) {
    return undefined;
  }
  const range = { from: current.from, through: Math.max(current.from - 1, Math.min(current.through, ancestor)) };
  for (const b of blocks) {
    if (!b.hasState || b.block.number !== range.through + 1) break;
    range.through = b.block.number;
  }
  return range;
}
