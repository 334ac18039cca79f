import type { ResolvedBlock } from '../../../starknet/blockRef.js';
import type { StoredTransaction } from '../../../starknet/bodies.js';
import { NotHeldError } from '../../../starknet/errors.js';
import type { StarknetStore, StoredBlock } from '../../../starknet/store.js';
import { formatBlockHeader, type RpcBlockHeader } from './blockHeader.js';

/**
 * Blocks, transactions and receipts on the wire (starkware-libs/starknet-specs v0.8.1
 * `api/starknet_api_openrpc.json`: BLOCK_WITH_TX_HASHES, BLOCK_WITH_TXS, BLOCK_WITH_RECEIPTS, their
 * PENDING_ forms, TXN_WITH_HASH, TXN_RECEIPT_WITH_BLOCK_INFO). Transactions and receipts are the
 * source's objects, unchanged but for what the spec makes this node's to say:
 *
 * - a block's `status`, and its receipts' `finality_status`, are ACCEPTED_ON_L1 up to the highest
 *   block known accepted on L1 and ACCEPTED_ON_L2 above it (pathfinder's rule: a block the
 *   follower stored as ACCEPTED_ON_L2 reads ACCEPTED_ON_L1 once the upstream's `l1_accepted`
 *   block has passed it);
 * - TXN_WITH_HASH puts `transaction_hash` (the receipt's) first;
 * - the pending block (`pending`, `pre_confirmed`) is the empty block after `latest`: no
 *   transactions, `parent_hash` the latest hash, the rest of its header the latest's (pathfinder's
 *   empty pending block).
 */

/** The finality of a block (and of its transactions). */
export type Finality = 'ACCEPTED_ON_L1' | 'ACCEPTED_ON_L2';

/** PENDING_BLOCK_HEADER: BLOCK_HEADER without the fields only a block that exists has. */
export type RpcPendingHeader = Omit<RpcBlockHeader, 'block_hash' | 'block_number' | 'new_root'>;

/** A stored block's `status`: ACCEPTED_ON_L1 at or below the highest block accepted on L1. */
export async function finalityOf(store: StarknetStore, number: number): Promise<Finality> {
  const l1 = await store.l1AcceptedNumber();
  return l1 !== undefined && number <= l1 ? 'ACCEPTED_ON_L1' : 'ACCEPTED_ON_L2';
}

/** `{status, ...BLOCK_HEADER}` of a stored block, the head of every BLOCK_WITH_* answer. */
export async function blockHead(store: StarknetStore, block: StoredBlock): Promise<{ status: Finality } & RpcBlockHeader> {
  return { status: await finalityOf(store, block.number), ...formatBlockHeader(block) };
}

/** PENDING_BLOCK_HEADER of the empty block after `parent`. */
export function pendingHeader(parent: StoredBlock): RpcPendingHeader {
  const h = formatBlockHeader(parent);
  return {
    parent_hash: h.block_hash,
    timestamp: h.timestamp,
    sequencer_address: h.sequencer_address,
    l1_gas_price: h.l1_gas_price,
    l2_gas_price: h.l2_gas_price,
    l1_data_gas_price: h.l1_data_gas_price,
    l1_da_mode: h.l1_da_mode,
    starknet_version: h.starknet_version,
  };
}

/** A block answer: BLOCK_WITH_* of a stored block with `transactions`, or the empty PENDING_BLOCK_WITH_*. */
export async function blockAnswer<T>(
  store: StarknetStore,
  resolved: ResolvedBlock,
  transactions: (block: StoredBlock, finality: Finality) => Promise<T[]>,
): Promise<Record<string, unknown>> {
  if (resolved.pending) return { transactions: [], ...pendingHeader(resolved.parent) };
  const head = await blockHead(store, resolved.block);
  return { ...head, transactions: await transactions(resolved.block, head.status) };
}

/**
 * What a block stored before tracenode kept transactions (a schema 1 datadir) lacks: its record
 * counts `count` transactions, and `found` are stored.
 */
export function requireTransactions<T>(block: StoredBlock, found: T[]): T[] {
  if (found.length !== block.transactionCount) {
    throw new NotHeldError(
      `the transactions of block ${block.number} are not held: it was stored before tracenode kept them (import it again into an empty datadir)`,
    );
  }
  return found;
}

/** TXN_WITH_HASH: the transaction with its hash first. */
export function transactionWithHash(tx: StoredTransaction): Record<string, unknown> {
  return { transaction_hash: tx.hash, ...tx.transaction };
}

/** TXN_RECEIPT: the receipt with the block's finality (its hash and events at least, when the source gave none). */
export function receiptOf(tx: StoredTransaction, finality: Finality): Record<string, unknown> {
  return { ...(tx.receipt ?? { transaction_hash: tx.hash, events: [] }), finality_status: finality };
}

/** An item of BLOCK_BODY_WITH_RECEIPTS: the transaction as given, and its receipt. */
export function transactionAndReceipt(tx: StoredTransaction, finality: Finality): { transaction: Record<string, unknown>; receipt: Record<string, unknown> } {
  return { transaction: tx.transaction ?? { transaction_hash: tx.hash }, receipt: receiptOf(tx, finality) };
}
