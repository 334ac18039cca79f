import type { EmittedEvent } from '../../../starknet/getEvents.js';

/** EMITTED_EVENT on the wire, in the spec's field order (spec v0.10: with `transaction_index` and `event_index`). */
export interface RpcEmittedEvent {
  from_address: string;
  keys: string[];
  data: string[];
  block_hash: string;
  block_number: number;
  transaction_hash: string;
  transaction_index: number;
  event_index: number;
}

/** An event as EMITTED_EVENT, as getEvents pages and the events subscription send it. */
export function toRpcEvent(e: EmittedEvent): RpcEmittedEvent {
  return {
    from_address: e.fromAddress,
    keys: e.keys,
    data: e.data,
    block_hash: e.blockHash,
    block_number: e.blockNumber,
    transaction_hash: e.transactionHash,
    transaction_index: e.transactionIndex,
    event_index: e.eventIndex,
  };
}
