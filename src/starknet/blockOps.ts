import type { BatchOp, Level } from '../db/database.js';
import type { BlockStatus, HeaderFields, ResourcePrice, StarknetBlockHeader, StarknetBlockInput } from './block.js';
import { bodyOps, bodyRemovalOps } from './bodies.js';
import { decodeEventRecord, encodeEventRecord } from './eventRecord.js';
import { feltToBytes, hex64ToBytes, trustedFeltToHex64 } from './felt.js';
import {
  blockHashKey,
  blockKey,
  encodeBlockNumber,
  encodeOrdinals,
  eventKey,
  INDEXED_KEY_POSITIONS,
  l1AcceptedKey,
  postingKey,
  readBlockNumber,
  SN_PREFIX,
  streamPrefix,
} from './keys.js';
import { stateOps, stateRemovalOps } from './stateIndex.js';

/**
 * The batches that add a block to a Starknet datadir and take one away (key schema in
 * `keys.ts`). Adding writes the block record, its hash entry, its events and one posting per
 * distinct indexed value, its transactions and receipts (`bodies.ts`) and, when known, its state
 * update (`stateIndex.ts`); taking away deletes exactly those keys, found again from the stored
 * events, transactions and state update, so a datadir that followed an upstream through a
 * reorganisation holds the same entries as one that imported the final chain.
 */

/**
 * The JSON of a `B` value. `hdr` (the header fields new heads carry) was added within schema 1:
 * a record written before has none, and reads as a block whose source gave none of them.
 */
export interface BlockRecord {
  hash: string;
  parent: string;
  time: number;
  status: BlockStatus;
  txs: number;
  events: number;
  hdr?: HeaderRecord;
}

/** A price as `[fri, wei]`. */
type PriceRecord = [fri: string, wei: string];

/** {@link HeaderFields} in a record: short names, absent fields left out. */
interface HeaderRecord {
  root?: string;
  seq?: string;
  ver?: string;
  l1?: PriceRecord;
  l2?: PriceRecord;
  l1d?: PriceRecord;
  da?: 'BLOB' | 'CALLDATA';
}

const toPrice = (p: ResourcePrice | undefined): PriceRecord | undefined => p && [p.priceInFri, p.priceInWei];
const fromPrice = (p: PriceRecord | undefined): ResourcePrice | undefined => p && { priceInFri: p[0], priceInWei: p[1] };

function headerRecord(f: HeaderFields): HeaderRecord {
  return {
    root: f.newRoot,
    seq: f.sequencerAddress,
    ver: f.starknetVersion,
    l1: toPrice(f.l1GasPrice),
    l2: toPrice(f.l2GasPrice),
    l1d: toPrice(f.l1DataGasPrice),
    da: f.l1DaMode,
  };
}

/** The header fields of a record (undefined for a record that has none). */
export function headerFieldsOf(record: BlockRecord): HeaderFields | undefined {
  const h = record.hdr;
  if (h === undefined) return undefined;
  return {
    newRoot: h.root,
    sequencerAddress: h.seq,
    starknetVersion: h.ver,
    l1GasPrice: fromPrice(h.l1),
    l2GasPrice: fromPrice(h.l2),
    l1DataGasPrice: fromPrice(h.l1d),
    l1DaMode: h.da,
  };
}

/** A block turned into its batch, ready for `StarknetStore.commitBlock` or a branch switch. */
export interface PreparedBlock {
  block: StarknetBlockHeader;
  hashBytes: Uint8Array;
  ops: BatchOp[];
  events: number;
  /** Whether the batch holds the block's state update. */
  hasState: boolean;
}

const EMPTY = new Uint8Array(0);
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/**
 * The index streams an event is posted in: its contract (`A`), each of its first
 * {@link INDEXED_KEY_POSITIONS} keys by position (`K`), and contract + first key (`C`); each with
 * a string naming the stream (to gather a block's postings) and the stream's key prefix.
 */
function streamsOf(fromAddress: string, keys: readonly string[]): Array<{ id: string; prefix: () => Uint8Array }> {
  const address = trustedFeltToHex64(fromAddress);
  const out = [{ id: `A${address}`, prefix: () => streamPrefix.address(hex64ToBytes(address)) }];
  const keyCount = Math.min(keys.length, INDEXED_KEY_POSITIONS);
  for (let i = 0; i < keyCount; i++) {
    const key = trustedFeltToHex64(keys[i]);
    out.push({ id: `K${i}:${key}`, prefix: () => streamPrefix.key(i, hex64ToBytes(key)) });
    if (i === 0) out.push({ id: `C${address}${key}`, prefix: () => streamPrefix.addressKey0(hex64ToBytes(address), hex64ToBytes(key)) });
  }
  return out;
}

/**
 * The batch of one block: `B`, `H`, `L` (if ACCEPTED_ON_L1), one `E` per event, and one posting
 * per distinct indexed value of the block. Pure CPU work, no I/O.
 */
export function prepareBlock(block: StarknetBlockInput): PreparedBlock {
  const hashBytes = feltToBytes(block.hash);
  const ops: BatchOp[] = [];
  // Posting lists of this block, by a string naming the stream; ordinals are pushed in order.
  const postings = new Map<string, { prefix: () => Uint8Array; ordinals: number[] }>();
  let events = 0;
  block.transactions.forEach((tx, txIndex) => {
    tx.events.forEach((ev, eventIndex) => {
      const index = events++;
      const record = encodeEventRecord({ txIndex, eventIndex, fromAddress: ev.fromAddress, keys: ev.keys, data: ev.data, transactionHash: tx.hash });
      ops.push({ type: 'put', key: eventKey(block.number, index), value: record });
      for (const { id, prefix } of streamsOf(ev.fromAddress, ev.keys)) {
        const p = postings.get(id);
        if (p) p.ordinals.push(index);
        else postings.set(id, { prefix, ordinals: [index] });
      }
    });
  });
  for (const { prefix, ordinals } of postings.values()) {
    ops.push({ type: 'put', key: postingKey(prefix(), block.number), value: encodeOrdinals(ordinals) });
  }
  const record: BlockRecord = {
    hash: block.hash,
    parent: block.parentHash,
    time: block.timestamp,
    status: block.status,
    txs: block.transactions.length,
    events,
    hdr: headerRecord(block.fields ?? {}),
  };
  ops.push({ type: 'put', key: blockKey(block.number), value: utf8Encoder.encode(JSON.stringify(record)) });
  ops.push({ type: 'put', key: blockHashKey(hashBytes), value: encodeBlockNumber(block.number) });
  if (block.status === 'ACCEPTED_ON_L1') ops.push({ type: 'put', key: l1AcceptedKey(block.number), value: EMPTY });
  ops.push(...bodyOps(block));
  if (block.stateUpdate !== undefined) ops.push(...stateOps(block.number, block.stateUpdate));
  const { number, hash, parentHash, timestamp, status, fields } = block;
  return { block: { number, hash, parentHash, timestamp, status, fields }, hashBytes, ops, events, hasState: block.stateUpdate !== undefined };
}

/**
 * Deletes of every stored block above `ancestor` (a reorganisation drops them): for each, its
 * `B`, `H`, `L`, its `E` entries and the postings its events made, read back from the stored
 * events, its `T` and `X` entries and its state update's entries. Returns the ops and the dropped
 * blocks' numbers and hashes, highest first.
 */
export async function removalOps(level: Level, ancestor: number): Promise<{ ops: BatchOp[]; dropped: Array<{ number: number; hash: string }> }> {
  const ops: BatchOp[] = [];
  const dropped: Array<{ number: number; hash: string }> = [];
  const records = await level.iterator({ gt: blockKey(ancestor), lt: Uint8Array.of(SN_PREFIX.block + 1), reverse: true }).all();
  for (const [key, value] of records) {
    const number = readBlockNumber(key, 1);
    const record = JSON.parse(utf8Decoder.decode(value)) as BlockRecord;
    dropped.push({ number, hash: record.hash });
    const streams = new Map<string, () => Uint8Array>();
    const events = await level.iterator({ gte: eventKey(number, 0), lt: eventKey(number + 1, 0) }).all();
    for (const [eventKeyBytes, eventValue] of events) {
      ops.push({ type: 'del', key: eventKeyBytes });
      const ev = decodeEventRecord(eventValue);
      for (const { id, prefix } of streamsOf(ev.fromAddress, ev.keys)) if (!streams.has(id)) streams.set(id, prefix);
    }
    for (const prefix of streams.values()) ops.push({ type: 'del', key: postingKey(prefix(), number) });
    ops.push({ type: 'del', key });
    ops.push({ type: 'del', key: blockHashKey(feltToBytes(record.hash)) });
    ops.push({ type: 'del', key: l1AcceptedKey(number) });
    ops.push(...(await bodyRemovalOps(level, number)), ...(await stateRemovalOps(level, number)));
  }
  return { ops, dropped };
}
