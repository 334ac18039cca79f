/**
 * The stored event record (the value of an `E` entry, key schema in `keys.ts`) and its codec.
 * On disk it is a JSON array, `[txIndex, eventIndex, fromAddress, keys, data, transactionHash]`,
 * the most compact JSON for the record that is written once per event; in code it is a
 * {@link StoredEvent} with named fields, and only this file knows the array's order.
 */

/**
 * One stored event: where it was emitted (its transaction's index in the block, its index in the
 * transaction's events) and what (felts as imported).
 */
export interface StoredEvent {
  txIndex: number;
  eventIndex: number;
  fromAddress: string;
  keys: string[];
  data: string[];
  transactionHash: string;
}

/** The record as JSON stores it: a fixed-order array (schema version 1, `keys.ts`). */
type EventRecordJson = [txIndex: number, eventIndex: number, fromAddress: string, keys: string[], data: string[], transactionHash: string];

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** Encodes an event as its `E` value. */
export function encodeEventRecord(ev: StoredEvent): Uint8Array {
  const json: EventRecordJson = [ev.txIndex, ev.eventIndex, ev.fromAddress, ev.keys, ev.data, ev.transactionHash];
  return utf8Encoder.encode(JSON.stringify(json));
}

/** Decodes an `E` value written by {@link encodeEventRecord}. */
export function decodeEventRecord(bytes: Uint8Array): StoredEvent {
  const [txIndex, eventIndex, fromAddress, keys, data, transactionHash] = JSON.parse(utf8Decoder.decode(bytes)) as EventRecordJson;
  return { txIndex, eventIndex, fromAddress, keys, data, transactionHash };
}
