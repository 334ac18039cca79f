import type { Block } from '@ethereumjs/block';
import { isBlob4844Tx, type TypedTransaction } from '@ethereumjs/tx';
import { bigIntToUnpaddedBytes, generateAddress } from '@ethereumjs/util';
import type { StoredReceipt } from '../../../chain/receipts.js';
import { bigIntToQuantity, bytesToData, hexKey } from '../../../codec/hex.js';
import { logsBloom } from './bloom.js';
import { formatLogAt, LOG_TEXT_BYTES, logObjectBytes, type RpcLog, renderPlace } from './formatLog.js';
import { effectiveGasPrice, senderOf } from './formatTransaction.js';
import type { RenderedByBlock } from './rendered.js';

/** A receipt on the wire (geth `internal/ethapi` `MarshalReceipt`). */
export interface RpcReceipt {
  blockHash: string;
  blockNumber: string;
  transactionHash: string;
  transactionIndex: string;
  from: string;
  to: string | null;
  gasUsed: string;
  cumulativeGasUsed: string;
  contractAddress: string | null;
  logs: RpcLog[];
  logsBloom: string;
  type: string;
  effectiveGasPrice: string;
  /** Byzantium and later. */
  status?: string;
  /** Before Byzantium: the state root after the transaction. */
  root?: string;
  /** Blob transactions only. */
  blobGasUsed?: string;
  blobGasPrice?: string;
}

/**
 * A stored receipt's bloom, computed once while the store keeps the receipt (its decoded receipts
 * are cached objects): a log's bloom bits cost a keccak of its address and of each topic.
 */
const blooms = new WeakMap<StoredReceipt, Uint8Array>();
function receiptBloom(receipt: StoredReceipt): Uint8Array {
  let bloom = blooms.get(receipt);
  if (bloom === undefined) {
    bloom = logsBloom(receipt.logs);
    blooms.set(receipt, bloom);
  }
  return bloom;
}

/** Blob gas one blob costs (EIP-4844 `GAS_PER_BLOB`); used only if a stored receipt lacks it. */
const GAS_PER_BLOB = 131_072n;

function formatOne(block: Block, tx: TypedTransaction, receipt: StoredReceipt, index: number, firstLogIndex: number): RpcReceipt {
  const header = block.header;
  const blockHash = block.hash();
  const transactionHash = tx.hash();
  const from = senderOf(tx);
  const place = renderPlace({ blockHash, blockNumber: header.number, blockTimestamp: header.timestamp, transactionHash, transactionIndex: index });
  const out: RpcReceipt = {
    blockHash: place.blockHash,
    blockNumber: place.blockNumber,
    transactionHash: place.transactionHash,
    transactionIndex: place.transactionIndex,
    from: bytesToData(from),
    to: tx.to ? bytesToData(tx.to.bytes) : null,
    gasUsed: bigIntToQuantity(receipt.gasUsed),
    cumulativeGasUsed: bigIntToQuantity(receipt.cumulativeGasUsed),
    // geth derives it from sender and nonce for every creation, successful or not.
    contractAddress: tx.to ? null : bytesToData(generateAddress(from, bigIntToUnpaddedBytes(tx.nonce))),
    logs: receipt.logs.map((log, i) => formatLogAt(log, place, firstLogIndex + i)),
    logsBloom: bytesToData(receiptBloom(receipt)),
    type: bigIntToQuantity(tx.type),
    effectiveGasPrice: bigIntToQuantity(effectiveGasPrice(tx, header.baseFeePerGas)),
  };
  if (receipt.statusOrRoot.length === 32) out.root = bytesToData(receipt.statusOrRoot);
  else out.status = bigIntToQuantity(receipt.statusOrRoot[0] ?? 0);
  if (isBlob4844Tx(tx)) {
    out.blobGasUsed = bigIntToQuantity(receipt.blobGasUsed ?? GAS_PER_BLOB * BigInt(tx.blobVersionedHashes.length));
    out.blobGasPrice = bigIntToQuantity(receipt.blobGasPrice ?? header.getBlobGasPrice());
  }
  return out;
}

/**
 * Renders every receipt of a block, with log indexes counted across the block. The receipts must
 * be the block's own (same length and order as its transactions). With `kept`, each receipt is
 * rendered once while kept there, and the array's elements are shared: never changed.
 */
export function formatBlockReceipts(block: Block, receipts: readonly StoredReceipt[], kept?: RenderedByBlock<RpcReceipt>): RpcReceipt[] {
  const out: RpcReceipt[] = [];
  const blockKey = kept === undefined ? '' : hexKey(block.hash());
  let logIndex = 0;
  block.transactions.forEach((tx, i) => {
    const first = logIndex;
    const render = () => formatOne(block, tx, receipts[i], i, first);
    out.push(kept === undefined ? render() : kept.item(blockKey, i, render));
    logIndex += receipts[i].logs.length;
  });
  return out;
}

/**
 * Renders the receipt of transaction `index` of a block (log indexes counted from the block
 * start). With `kept`, once while kept there, and the answer is shared: never changed.
 */
export function formatReceipt(block: Block, receipts: readonly StoredReceipt[], index: number, kept?: RenderedByBlock<RpcReceipt>): RpcReceipt {
  const render = () => {
    let firstLogIndex = 0;
    for (let i = 0; i < index; i++) firstLogIndex += receipts[i].logs.length;
    return formatOne(block, block.transactions[index], receipts[index], index, firstLogIndex);
  };
  return kept === undefined ? render() : kept.item(hexKey(block.hash()), index, render);
}

/**
 * Estimated bytes of a receipt kept rendered (`rendered.ts`): its fields (the bloom's 514
 * characters the most) and logs, twice (object and text); within 10 % of what 2,676 receipts of
 * the bench chain kept with their text measured (4.9 KB each).
 */
export function receiptBytes(receipt: RpcReceipt): number {
  let own = 1_300;
  for (const log of receipt.logs) own += logObjectBytes(log) + LOG_TEXT_BYTES;
  return own + own;
}
