import type { BatchOp, Level } from '../db/database.js';
import type { StarknetBlockInput } from './block.js';
import { decodeEventRecord } from './eventRecord.js';
import { feltToBytes } from './felt.js';
import { encodeTransactionPosition, eventKey, readTransactionPosition, transactionHashKey, transactionKey } from './keys.js';

/**
 * A block's transactions and receipts as stored (`T` and `X` entries, key schema in `keys.ts`):
 * each transaction and its receipt are kept as the source gave them and read back unchanged. The
 * receipt's events are not stored twice: the `T` record keeps the receipt with `events` replaced
 * by their count, and reading puts back the block's `E` records of that transaction (the same
 * felts, as given), in emission order, as `{from_address, keys, data}`.
 */

/** A stored transaction with its receipt, as the source gave them (the receipt's events put back). */
export interface StoredTransaction {
  /** The transaction hash (the receipt's `transaction_hash`), as given. */
  hash: string;
  index: number;
  /** The transaction object (TXN), or undefined when the source gave none. */
  transaction: Record<string, unknown> | undefined;
  /** The receipt object (TXN_RECEIPT) with its events, or undefined when the source gave none. */
  receipt: Record<string, unknown> | undefined;
}

/** The JSON of a `T` value: transaction, receipt (`events` = their count), hash, first event ordinal. */
interface TransactionRecord {
  t: Record<string, unknown> | null;
  r: Record<string, unknown> | null;
  h: string;
  e: number;
  n: number;
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** The `T` and `X` puts of a block's transactions. */
export function bodyOps(block: StarknetBlockInput): BatchOp[] {
  const ops: BatchOp[] = [];
  let ordinal = 0;
  block.transactions.forEach((tx, index) => {
    const receipt = tx.receipt === undefined ? null : { ...tx.receipt, events: tx.events.length };
    const record: TransactionRecord = { t: tx.transaction ?? null, r: receipt, h: tx.hash, e: ordinal, n: tx.events.length };
    ordinal += tx.events.length;
    ops.push({ type: 'put', key: transactionKey(block.number, index), value: utf8Encoder.encode(JSON.stringify(record)) });
    ops.push({ type: 'put', key: transactionHashKey(feltToBytes(tx.hash)), value: encodeTransactionPosition(block.number, index) });
  });
  return ops;
}

/** The deletes of stored block `number`'s `T` and `X` entries (a reorganisation drops the block). */
export async function bodyRemovalOps(level: Level, number: number): Promise<BatchOp[]> {
  const ops: BatchOp[] = [];
  for (const [key, value] of await level.iterator({ gte: transactionKey(number, 0), lt: transactionKey(number + 1, 0) }).all()) {
    const record = decode(value);
    ops.push({ type: 'del', key: transactionHashKey(feltToBytes(record.h)) });
    ops.push({ type: 'del', key });
  }
  return ops;
}

/** Every transaction of stored block `number`, in block order (none for an unknown block). */
export async function readBlockTransactions(level: Level, number: number): Promise<StoredTransaction[]> {
  const records = (await level.values({ gte: transactionKey(number, 0), lt: transactionKey(number + 1, 0) }).all()).map(decode);
  const events = records.some((r) => r.n > 0) ? await level.values({ gte: eventKey(number, 0), lt: eventKey(number + 1, 0) }).all() : [];
  return records.map((r, index) => assemble(r, index, events.slice(r.e, r.e + r.n)));
}

/** The hashes of stored block `number`'s transactions, in block order. */
export async function readBlockTransactionHashes(level: Level, number: number): Promise<string[]> {
  return (await level.values({ gte: transactionKey(number, 0), lt: transactionKey(number + 1, 0) }).all()).map((v) => decode(v).h);
}

/** Transaction `index` of stored block `number`, or undefined. */
export async function readTransaction(level: Level, number: number, index: number): Promise<StoredTransaction | undefined> {
  const value = await level.get(transactionKey(number, index));
  if (value === undefined) return undefined;
  const r = decode(value);
  const events = r.n === 0 ? [] : await level.values({ gte: eventKey(number, r.e), lt: eventKey(number, r.e + r.n) }).all();
  return assemble(r, index, events);
}

/** Where the transaction with this hash (32 bytes) is stored, or undefined. */
export async function transactionPosition(level: Level, hash: Uint8Array): Promise<{ block: number; index: number } | undefined> {
  const value = await level.get(transactionHashKey(hash));
  return value === undefined ? undefined : readTransactionPosition(value, 0);
}

function decode(value: Uint8Array): TransactionRecord {
  return JSON.parse(utf8Decoder.decode(value)) as TransactionRecord;
}

/** A record with its events (their `E` values) put back into the receipt, where the source had them. */
function assemble(r: TransactionRecord, index: number, eventValues: Uint8Array[]): StoredTransaction {
  let receipt: Record<string, unknown> | undefined;
  if (r.r !== null) {
    const events = eventValues.map(decodeEventRecord).map((e) => ({ from_address: e.fromAddress, keys: e.keys, data: e.data }));
    receipt = { ...r.r, events };
  }
  return { hash: r.h, index, transaction: r.t ?? undefined, receipt };
}
