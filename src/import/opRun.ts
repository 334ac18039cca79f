import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { VM } from '@ethereumjs/vm';
import type { OpRollup } from '../chain/op/rollup.js';
import type { StoredReceipt } from '../chain/receipts.js';
import { executeOpBlock, type OpBlockResult, type OpReceipt } from '../execution/op/opBlockRun.js';
import type { BlockRun } from './blockRunResult.js';

/**
 * The importer's side of an OP-stack block (`execution/op/opBlockRun.ts` runs it, on a VM of its
 * upgrade, `execution/op/opVm.ts`): the run's roots and its receipts as the store keeps them,
 * with their OP fields.
 */

/**
 * Runs `block` on `vm` and gives what the importer compares and stores. `quirks`: as anvil's OP
 * mode makes blocks (`OpBlockInput.quirks`).
 */
export async function runOpBlock(vm: VM, op: OpRollup, block: Block, quirks?: 'anvil'): Promise<BlockRun> {
  const transactions = block.transactions.map((tx: TypedTransaction) => tx.serialize());
  const result = await executeOpBlock(vm, { block, transactions, rollup: op, ...(quirks ? { quirks } : {}) });
  return {
    stateRoot: result.stateRoot,
    receiptsRoot: result.receiptsRoot,
    logsBloom: result.logsBloom,
    gasUsed: result.gasUsed,
    ...(result.withdrawalsRoot ? { withdrawalsRoot: result.withdrawalsRoot } : {}),
    ...(result.blobGasUsed !== undefined ? { blobGasUsed: result.blobGasUsed } : {}),
    receipts: opStoredReceipts(result),
  };
}

/** An OP run's receipts as the store keeps them. */
function opStoredReceipts(result: OpBlockResult): StoredReceipt[] {
  return result.receipts.map((r: OpReceipt) => {
    const stored: StoredReceipt = {
      statusOrRoot: Uint8Array.of(r.status),
      cumulativeGasUsed: r.cumulativeGasUsed,
      gasUsed: r.gasUsed,
      logs: r.logs.map(([address, topics, data]) => [address, topics, data]),
    };
    if (r.createdAddress) stored.contractAddress = r.createdAddress.bytes;
    if (r.depositNonce !== undefined) stored.depositNonce = r.depositNonce;
    if (r.depositReceiptVersion !== undefined) stored.depositReceiptVersion = r.depositReceiptVersion;
    if (r.l1 !== undefined) stored.l1Fee = { rules: r.l1.rules, fee: r.l1.fee, gasUsed: r.l1.gasUsed, ...r.l1.params };
    if (r.operatorFee !== undefined) stored.operatorFee = { scalar: r.operatorFee.scalar, constant: r.operatorFee.constant };
    if (r.daFootprint !== undefined) stored.daFootprint = r.daFootprint;
    return stored;
  });
}
