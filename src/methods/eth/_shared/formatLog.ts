import type { StoredLog } from '../../../chain/receipts.js';
import { bigIntToQuantity, bytesToData } from '../../../codec/hex.js';
import type { LogPosition } from '../../../live/eth/chainFeed.js';

/** A log on the wire (geth `types.Log` JSON). */
export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  transactionHash: string;
  transactionIndex: string;
  blockHash: string;
  blockTimestamp: string;
  logIndex: string;
  /** True when the log's block left the canonical chain (a subscription or filter after a reorganisation). */
  removed: boolean;
}

/** A log's place as rendered text: the block's and transaction's fields, shared by their logs. */
export interface RenderedPlace {
  blockHash: string;
  blockNumber: string;
  blockTimestamp: string;
  transactionHash: string;
  transactionIndex: string;
}

/** The block's and transaction's fields of `at`, rendered. */
export function renderPlace(at: Omit<LogPosition, 'logIndex'>): RenderedPlace {
  return {
    blockHash: bytesToData(at.blockHash),
    blockNumber: bigIntToQuantity(at.blockNumber),
    blockTimestamp: bigIntToQuantity(at.blockTimestamp),
    transactionHash: bytesToData(at.transactionHash),
    transactionIndex: bigIntToQuantity(at.transactionIndex),
  };
}

/**
 * Renders a stored log at a rendered place (the block's and transaction's strings made once for
 * all their logs). `removed` is false except in the notifications and filter changes that
 * withdraw the logs of a block a reorganisation dropped. Field set and order as geth ≥ 1.16 emits
 * them (with `blockTimestamp`).
 */
export function formatLogAt([address, topics, data]: StoredLog, place: RenderedPlace, logIndex: number, removed = false): RpcLog {
  return {
    address: bytesToData(address),
    topics: topics.map(bytesToData),
    data: bytesToData(data),
    blockNumber: place.blockNumber,
    transactionHash: place.transactionHash,
    transactionIndex: place.transactionIndex,
    blockHash: place.blockHash,
    blockTimestamp: place.blockTimestamp,
    logIndex: bigIntToQuantity(logIndex),
    removed,
  };
}

/** Renders a stored log at its position (see {@link formatLogAt}). */
export function formatLog(log: StoredLog, at: LogPosition, removed = false): RpcLog {
  return formatLogAt(log, renderPlace(at), at.logIndex, removed);
}

/** A rendered log's strings (one byte a character) and the objects around them; blockHash, transactionHash and blockTimestamp are shared by the block's or transaction's logs. */
export function logObjectBytes(log: RpcLog): number {
  let bytes = 160 + log.address.length + log.data.length + log.blockNumber.length + log.transactionIndex.length + log.logIndex.length;
  for (const topic of log.topics) bytes += 16 + topic.length;
  return bytes;
}

/** A log's JSON text besides its own strings: the names, quotes and punctuation, and the shared hashes written out (~230 bytes). */
export const LOG_TEXT_BYTES = 230;

/**
 * Estimated bytes of a log kept rendered (`rendered.ts`): the object and its text, and what V8
 * adds around them (the strings' headers, the kept text's WeakMap entry): 680 bytes besides twice
 * its own strings, from measuring 3,610 logs of the bench chain kept with their text (1.8 KB each).
 */
export function logBytes(log: RpcLog): number {
  const own = logObjectBytes(log);
  return own + own + 680;
}
