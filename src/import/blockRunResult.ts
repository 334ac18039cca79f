import type { StoredReceipt } from '../chain/receipts.js';

/**
 * What executing a block gave, as the importer compares it with the header and stores it: an
 * Ethereum block's (runBlock's result) or an OP-stack block's (`opRun.ts`).
 */
export interface BlockRun {
  stateRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  gasUsed: bigint;
  /** Prague's requests hash (Ethereum). */
  requestsHash?: Uint8Array;
  /** From Isthmus (OP stack): the message passer's storage root, the header's withdrawals root. */
  withdrawalsRoot?: Uint8Array;
  /** From Jovian (OP stack): the block's data-availability footprint, the header's blobGasUsed. */
  blobGasUsed?: bigint;
  receipts: StoredReceipt[];
}
