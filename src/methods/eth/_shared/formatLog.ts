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

/**
 * Renders a stored log. `removed` is false except in the notifications and filter changes that
 * withdraw the logs of a block a reorganisation dropped. Field set as geth ≥ 1.16 emits it
 * (with `blockTimestamp`).
 */
export function formatLog([address, topics, data]: StoredLog, at: LogPosition, removed = false): RpcLog {
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
    removed,
  };
}
