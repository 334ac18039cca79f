/**
 * A Starknet block as tracenode stores it: the header fields it keeps and every transaction's
 * events, whichever way the block came (an NDJSON line, a followed upstream's answer).
 */

/** Block statuses an imported block may have: only final ones (a pending block has no hash). */
export const IMPORTABLE_BLOCK_STATUSES = ['ACCEPTED_ON_L2', 'ACCEPTED_ON_L1'] as const;
export type BlockStatus = (typeof IMPORTABLE_BLOCK_STATUSES)[number];

/** Largest block number stored: keys hold 8 bytes, but numbers stay exact JS integers. */
export const MAX_BLOCK_NUMBER = Number.MAX_SAFE_INTEGER - 1;

/** One resource's price in a block header (the spec's RESOURCE_PRICE), felts as imported. */
export interface ResourcePrice {
  priceInFri: string;
  priceInWei: string;
}

/**
 * The rest of a block's header as the spec's BLOCK_HEADER has it, as given by the block's
 * source; each is absent when the source did not give it (old NDJSON lines, old feeder blocks).
 */
export interface HeaderFields {
  newRoot?: string;
  sequencerAddress?: string;
  starknetVersion?: string;
  l1GasPrice?: ResourcePrice;
  l2GasPrice?: ResourcePrice;
  l1DataGasPrice?: ResourcePrice;
  l1DaMode?: 'BLOB' | 'CALLDATA';
}

/** A block's header fields that the store keeps. Felts are the strings as imported. */
export interface StarknetBlockHeader {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: number;
  status: BlockStatus;
  /** The other header fields; absent in a record written before they were stored. */
  fields?: HeaderFields;
}

/** One event as emitted: contract address, keys and data, felts as imported. */
export interface StarknetEventInput {
  fromAddress: string;
  keys: string[];
  data: string[];
}

/**
 * A transaction's hash and the events of its receipt, in emission order; with the transaction and
 * its receipt as the source gave them (objects of the source's `starknet_getBlockWithReceipts`
 * answer, kept verbatim and served back as they came). Either may be absent when the source gave
 * only events (tests build blocks so).
 */
export interface StarknetTransactionInput {
  hash: string;
  events: StarknetEventInput[];
  transaction?: Record<string, unknown>;
  receipt?: Record<string, unknown>;
}

/**
 * What a block's state update changed, felts as given: storage slots written, nonces set, the
 * class hash each deployed or replaced contract has from this block, and the classes declared
 * (Cairo 1 and Cairo 0 alike).
 */
export interface StateDiff {
  storage: Array<{ address: string; key: string; value: string }>;
  nonces: Array<{ address: string; nonce: string }>;
  classes: Array<{ address: string; classHash: string }>;
  declared: string[];
}

/** A block's state update: the source's `starknet_getStateUpdate` answer, kept verbatim, and its diff. */
export interface StateUpdateInput {
  blockHash: string;
  json: Record<string, unknown>;
  diff: StateDiff;
}

/** What the importer hands to the store: a header, every transaction, and the state update when known. */
export interface StarknetBlockInput extends StarknetBlockHeader {
  transactions: StarknetTransactionInput[];
  stateUpdate?: StateUpdateInput;
}
