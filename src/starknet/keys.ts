/**
 * LevelDB key schema of a Starknet datadir. Like the Ethereum schema (`db/keys.ts`) every key
 * starts with a one-byte table prefix and numbers are big-endian, so key order is numeric order.
 * The two kinds never share a datadir: the `m kind` key names the kind and each side refuses the
 * other's.
 *
 * An event's *position* is its block number and its ordinal in the block, counting every event
 * of every transaction in emission order. Position order is the order `starknet_getEvents`
 * returns events in (block, transaction, event). `E` is keyed by position (block (8) ++ ordinal
 * (4)); the indexes are *posting lists*: one entry per indexed value per block, keyed by value ++
 * block, holding the ordinals of that block's events with that value (4 bytes each, ascending).
 * One entry per block and value instead of one per event makes an import write ~3× fewer keys on
 * real blocks (block 619596: 2,449 instead of 7,262), and a page can still start at any event
 * with one seek per stream.
 *
 * | prefix | key                                      | value                                       |
 * |--------|------------------------------------------|---------------------------------------------|
 * | `m`    | `kind` (utf-8)                           | `starknet` (utf-8): the datadir kind        |
 * | `m`    | `starknet-schema` (utf-8)                | schema version, uint32 BE                   |
 * | `m`    | `starknet-chain-id` (utf-8)              | the followed upstream's chain id (utf-8)    |
 * | `B`    | block number (8)                         | block record, JSON (see `store.ts`)         |
 * | `H`    | block hash felt (32)                     | block number (8)                            |
 * | `L`    | block number (8)                         | empty: the block is ACCEPTED_ON_L1          |
 * | `E`    | block (8) ++ ordinal (4)                 | event record, JSON (see `eventRecord.ts`)   |
 * | `A`    | from_address (32) ++ block (8)           | ordinals: index by contract                 |
 * | `K`    | key index i (1) ++ keys[i] (32) ++ block (8) | ordinals: index by the i-th key, i < 16 |
 * | `C`    | from_address (32) ++ keys[0] (32) ++ block (8) | ordinals: index by contract + selector |
 * | `T`    | block (8) ++ transaction index (4)       | transaction and receipt, JSON (`bodies.ts`) |
 * | `X`    | transaction hash (32)                    | block (8) ++ transaction index (4)          |
 * | `U`    | block number (8)                         | the block's state update, JSON as given     |
 * | `S`    | address (32) ++ storage key (32) ++ block (8) | value written (32), or empty: no contract |
 * | `O`    | address (32) ++ block (8)                | nonce (32), or empty: no contract           |
 * | `Z`    | address (32) ++ block (8)                | class hash (32), or empty: no contract      |
 * | `D`    | class hash (32)                          | block (8) the class was declared in         |
 * | `Y`    | class hash (32)                          | the class definition, JSON as fetched       |
 * | `m`    | `starknet-state` (utf-8)                 | the blocks with state, JSON `{from, through}` |
 * | `m`    | `starknet-from` (utf-8)                  | block (8) an empty datadir follows from     |
 *
 * Felts inside keys are their 32-byte big-endian value, so `0x01` and `0x1` are the same key.
 * `E` is the by-block index (a block's events are one contiguous key range). `S`, `O` and `Z` are
 * written from each block's state update at that block's number (`stateIndex.ts`), and once at the
 * block before the first block with state for a value read from the followed upstream
 * (`stateReader.ts`): the value at block N is the entry of the highest block ≤ N.
 */

/** Table prefixes. Distinct from the Ethereum ones except `m`, which both kinds use for metadata. */
export const SN_PREFIX = {
  meta: 0x6d, // m
  block: 0x42, // B
  blockHash: 0x48, // H
  l1Accepted: 0x4c, // L
  event: 0x45, // E
  byAddress: 0x41, // A
  byKey: 0x4b, // K
  byAddressKey0: 0x43, // C
  transaction: 0x54, // T
  transactionHash: 0x58, // X
  stateUpdate: 0x55, // U
  storage: 0x53, // S
  nonce: 0x4f, // O
  classHash: 0x5a, // Z
  classDeclared: 0x44, // D
  classDefinition: 0x59, // Y
} as const;

const utf8 = new TextEncoder();

/**
 * The key naming a datadir's kind: `m` ++ utf-8 `kind`. Its value is the utf-8 kind name,
 * {@link DATADIR_KIND_STARKNET} here; an Ethereum datadir should hold `ethereum` under the same key.
 */
export const DATADIR_KIND_KEY = Uint8Array.of(SN_PREFIX.meta, ...utf8.encode('kind'));

/** Value of {@link DATADIR_KIND_KEY} in a Starknet datadir. */
export const DATADIR_KIND_STARKNET = 'starknet';

/** Key of the Starknet schema version. */
export const STARKNET_SCHEMA_KEY = Uint8Array.of(SN_PREFIX.meta, ...utf8.encode('starknet-schema'));

/**
 * Key of the chain id a followed upstream announced (`starknet_chainId`, e.g. `0x534e5f4d41494e`
 * for SN_MAIN), utf-8; written the first time the datadir follows an upstream, then checked.
 */
export const STARKNET_CHAIN_ID_KEY = Uint8Array.of(SN_PREFIX.meta, ...utf8.encode('starknet-chain-id'));

/**
 * Key of the range of blocks whose state is held (`{"from": F, "through": T}`, JSON): every block
 * from F to T has its state update stored, so the state at any block of that range is known.
 */
export const STARKNET_STATE_RANGE_KEY = Uint8Array.of(SN_PREFIX.meta, ...utf8.encode('starknet-state'));

/**
 * Key of the block an empty datadir follows from (`follow --from`, 8 bytes), written when the
 * datadir is made, so that a restart before the first block is written starts there too.
 */
export const STARKNET_FROM_KEY = Uint8Array.of(SN_PREFIX.meta, ...utf8.encode('starknet-from'));

/**
 * Version of this key schema; a datadir of a later version is refused. 2: transactions, receipts
 * and state updates are stored (`T`, `X`, `U`, `S`, `O`, `Z`, `D`, `Y`). A schema 1 datadir opens
 * as version 2: its blocks have none of those entries (their reads say so), later blocks do.
 */
export const STARKNET_SCHEMA_VERSION = 2;

/** Bytes of an encoded event position (an `E` key without its prefix). */
export const POSITION_BYTES = 12;

/** Bytes of a felt inside a key. */
export const FELT_BYTES = 32;

/**
 * Key positions covered by the `K` index. Filters may not use more positions than the key-filter
 * limit (the `starknet.maxKeyPositions` setting, at most 16), so deeper keys would never be looked up.
 */
export const INDEXED_KEY_POSITIONS = 16;

/** Where an event sits: its block and its ordinal among the block's events (0-based). */
export interface EventPosition {
  block: number;
  index: number;
}

const TWO_32 = 2 ** 32;

/** Writes an 8-byte big-endian block number at `offset` (numbers up to 2^53 - 1). */
export function writeBlockNumber(out: Uint8Array, offset: number, n: number): void {
  const hi = Math.floor(n / TWO_32);
  const lo = n - hi * TWO_32;
  out[offset] = hi >>> 24;
  out[offset + 1] = (hi >>> 16) & 0xff;
  out[offset + 2] = (hi >>> 8) & 0xff;
  out[offset + 3] = hi & 0xff;
  writeUint32(out, offset + 4, lo);
}

/** Reads an 8-byte big-endian block number written by {@link writeBlockNumber}. */
export function readBlockNumber(bytes: Uint8Array, offset: number): number {
  return readUint32(bytes, offset) * TWO_32 + readUint32(bytes, offset + 4);
}

function writeUint32(out: Uint8Array, offset: number, n: number): void {
  out[offset] = n >>> 24;
  out[offset + 1] = (n >>> 16) & 0xff;
  out[offset + 2] = (n >>> 8) & 0xff;
  out[offset + 3] = n & 0xff;
}

function readUint32(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset] << 24) >>> 0) + (bytes[offset + 1] << 16) + (bytes[offset + 2] << 8) + bytes[offset + 3];
}

/** Writes a 12-byte position at `offset`. */
export function writePosition(out: Uint8Array, offset: number, block: number, index: number): void {
  writeBlockNumber(out, offset, block);
  writeUint32(out, offset + 8, index);
}

/** The position of an `E` key. */
export function positionOfEventKey(key: Uint8Array): EventPosition {
  return { block: readBlockNumber(key, 1), index: readUint32(key, 9) };
}

/** Orders positions as results are ordered. */
export function comparePositions(a: EventPosition, b: EventPosition): number {
  return a.block - b.block || a.index - b.index;
}

/** The block number at the end of a posting key. */
export function blockOfPostingKey(key: Uint8Array): number {
  return readBlockNumber(key, key.length - 8);
}

/** A posting value: ascending ordinals, 4 bytes each. */
export function encodeOrdinals(ordinals: readonly number[]): Uint8Array {
  const out = new Uint8Array(4 * ordinals.length);
  for (let i = 0; i < ordinals.length; i++) writeUint32(out, 4 * i, ordinals[i]);
  return out;
}

/** Inverse of {@link encodeOrdinals}. */
export function decodeOrdinals(bytes: Uint8Array): number[] {
  const out = new Array<number>(bytes.length >>> 2);
  for (let i = 0; i < out.length; i++) out[i] = readUint32(bytes, 4 * i);
  return out;
}

/** `B ++ number`. */
export function blockKey(number: number): Uint8Array {
  const key = new Uint8Array(9);
  key[0] = SN_PREFIX.block;
  writeBlockNumber(key, 1, number);
  return key;
}

/** `L ++ number`. */
export function l1AcceptedKey(number: number): Uint8Array {
  const key = blockKey(number);
  key[0] = SN_PREFIX.l1Accepted;
  return key;
}

/** `H ++ hash`. */
export function blockHashKey(hash: Uint8Array): Uint8Array {
  return prefixed([SN_PREFIX.blockHash], hash);
}

/** The 8-byte value of an `H` entry. */
export function encodeBlockNumber(number: number): Uint8Array {
  const out = new Uint8Array(8);
  writeBlockNumber(out, 0, number);
  return out;
}

/** `E ++ position`. */
export function eventKey(block: number, index: number): Uint8Array {
  const key = new Uint8Array(1 + POSITION_BYTES);
  key[0] = SN_PREFIX.event;
  writePosition(key, 1, block, index);
  return key;
}

/**
 * The prefix of one index *stream*: the part of a posting key before the block number. The
 * stream's entries list its events in result order.
 */
export const streamPrefix = {
  /** Events of one contract. */
  address: (address: Uint8Array): Uint8Array => prefixed([SN_PREFIX.byAddress], address),
  /** Events whose `keys[i]` is `key`. */
  key: (i: number, key: Uint8Array): Uint8Array => prefixed([SN_PREFIX.byKey, i], key),
  /** Events of one contract whose `keys[0]` is `key0`. */
  addressKey0: (address: Uint8Array, key0: Uint8Array): Uint8Array => twoFelts(SN_PREFIX.byAddressKey0, address, key0),
} as const;

/** `prefix ++ block`: a posting key. */
export function postingKey(prefix: Uint8Array, block: number): Uint8Array {
  const key = new Uint8Array(prefix.length + 8);
  key.set(prefix, 0);
  writeBlockNumber(key, prefix.length, block);
  return key;
}

/** Key bounds of a stream's postings for blocks `fromBlock..toBlock` (inclusive). */
export function postingBounds(prefix: Uint8Array, fromBlock: number, toBlock: number): { gte: Uint8Array; lt: Uint8Array } {
  return { gte: postingKey(prefix, fromBlock), lt: postingKey(prefix, toBlock + 1) };
}

/** Key bounds of `E` from position `start` to the end of block `toBlock` (inclusive). */
export function eventBounds(start: EventPosition, toBlock: number): { gte: Uint8Array; lt: Uint8Array } {
  return { gte: eventKey(start.block, start.index), lt: eventKey(toBlock + 1, 0) };
}

/** `prefix ++ a ++ b`, two 32-byte felts. */
function twoFelts(prefix: number, a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(1 + 2 * FELT_BYTES);
  out[0] = prefix;
  out.set(a, 1);
  out.set(b, 1 + FELT_BYTES);
  return out;
}

function prefixed(head: number[], bytes: Uint8Array): Uint8Array {
  const key = new Uint8Array(head.length + bytes.length);
  key.set(head, 0);
  key.set(bytes, head.length);
  return key;
}

/** `T ++ block ++ index`: a transaction and its receipt. */
export function transactionKey(block: number, index: number): Uint8Array {
  const key = new Uint8Array(1 + POSITION_BYTES);
  key[0] = SN_PREFIX.transaction;
  writePosition(key, 1, block, index);
  return key;
}

/** The block and index of a `T` key, or of an `X` value (`offset` 0). */
export function readTransactionPosition(bytes: Uint8Array, offset: number): { block: number; index: number } {
  return { block: readBlockNumber(bytes, offset), index: readUint32(bytes, offset + 8) };
}

/** The 12-byte value of an `X` entry. */
export function encodeTransactionPosition(block: number, index: number): Uint8Array {
  const out = new Uint8Array(POSITION_BYTES);
  writePosition(out, 0, block, index);
  return out;
}

/** `X ++ hash`. */
export function transactionHashKey(hash: Uint8Array): Uint8Array {
  return prefixed([SN_PREFIX.transactionHash], hash);
}

/** `U ++ block`. */
export function stateUpdateKey(number: number): Uint8Array {
  const key = blockKey(number);
  key[0] = SN_PREFIX.stateUpdate;
  return key;
}

/**
 * The prefix of one state item's history: a storage slot (`S ++ address ++ key`), a nonce
 * (`O ++ address`) or a class hash (`Z ++ address`). Its entries are `prefix ++ block`
 * ({@link postingKey} builds them), one per block that wrote the item.
 */
export const statePrefix = {
  storage: (address: Uint8Array, key: Uint8Array): Uint8Array => twoFelts(SN_PREFIX.storage, address, key),
  nonce: (address: Uint8Array): Uint8Array => prefixed([SN_PREFIX.nonce], address),
  classHash: (address: Uint8Array): Uint8Array => prefixed([SN_PREFIX.classHash], address),
} as const;

/** `D ++ class hash`. */
export function classDeclaredKey(classHash: Uint8Array): Uint8Array {
  return prefixed([SN_PREFIX.classDeclared], classHash);
}

/** `Y ++ class hash`. */
export function classDefinitionKey(classHash: Uint8Array): Uint8Array {
  return prefixed([SN_PREFIX.classDefinition], classHash);
}
