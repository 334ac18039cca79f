import type { StoredLog } from '../../../chain/receipts.js';
import { bigIntToQuantity, bytesToData } from '../../../codec/hex.js';

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
  removed: false;
}

/** Where a log sits: its block, its transaction, and its index counted across the whole block. */
export interface LogPosition {
  blockHash: Uint8Array;
  blockNumber: bigint;
  blockTimestamp: bigint;
  transactionHash: Uint8Array;
  transactionIndex: number;
  logIndex: number;
}

/**
 * Renders a stored log. `removed` is always false: an imported chain never reorganises.
 * Field set as geth ≥ 1.16 emits it (with `blockTimestamp`).
 */
export function formatLog([address, topics, data]: StoredLog, at: LogPosition): RpcLog {
  return {
    address: bytesToData(address),
    topics: topics.map(bytesToData),
    data: bytesToData(data),
    blockNumber: bigIntToQuantity(at.blockNumber),
    transactionHash: bytesToData(at.transactionHash),
    transactionIndex: bigIntToQuantity(at.transactionIndex),
    blockHash: bytesToData(at.blockHash),
    blockTimestamp: bigIntToQuantity(at.blockTimestamp),
    logIndex: bigIntToQuantity(at.logIndex),
    removed: false,
  };
}
