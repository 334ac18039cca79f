import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { DepositTransaction } from '../../../chain/op/opBlock.js';
import type { StoredReceipt } from '../../../chain/receipts.js';

/** A transaction of a stored block: a signed one, or on an OP-stack chain a deposit (type 0x7E, `chain/op/opBlock.ts`). */
export type BlockTransaction = TypedTransaction | DepositTransaction;

/** Whether a block's transaction is an OP-stack deposit. */
export function isDepositTransaction(tx: BlockTransaction): tx is DepositTransaction {
  return tx instanceof DepositTransaction;
}

/** Where a block's receipts are read from (`ChainStore.receipts`). */
export interface ReceiptSource {
  receipts(blockHash: Uint8Array): Promise<StoredReceipt[] | undefined>;
}

/**
 * A block's stored receipts when rendering its transactions needs them, else undefined: a
 * deposit's JSON carries its receipt's `depositNonce` as `nonce` and its `depositReceiptVersion`
 * (op-geth `newRPCTransactionFromBlockIndex` reads the receipt of a deposit only). With `index`,
 * only when transaction `index` is a deposit; without, when any of the block's is. An Ethereum
 * block has none, and costs no read.
 */
export async function receiptsForDeposits(store: ReceiptSource, block: Block, index?: number): Promise<readonly StoredReceipt[] | undefined> {
  const txs: readonly BlockTransaction[] = block.transactions;
  const needed = index === undefined ? txs.some(isDepositTransaction) : txs[index] !== undefined && isDepositTransaction(txs[index]);
  return needed ? store.receipts(block.hash()) : undefined;
}
