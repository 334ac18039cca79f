import type { Block } from '@ethereumjs/block';
import { isBlob4844Tx } from '@ethereumjs/tx';
import { bigIntToUnpaddedBytes, generateAddress } from '@ethereumjs/util';
import type { StoredReceipt } from '../../../chain/receipts.js';
import { bigIntToQuantity, bytesToData, hexKey } from '../../../codec/hex.js';
import { logsBloom } from './bloom.js';
import { type BlockTransaction, isDepositTransaction } from './deposits.js';
import { formatLogAt, LOG_TEXT_BYTES, logObjectBytes, type RpcLog, renderPlace } from './formatLog.js';
import { effectiveGasPrice, senderOf } from './formatTransaction.js';
import { l1FeeScalarText } from './goFloat.js';
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
  /** OP stack, a deposit: its sender's nonce before it (from Regolith) and the receipt's version (from Canyon). */
  depositNonce?: string;
  depositReceiptVersion?: string;
  /** OP stack, an ordinary transaction: the L1 data fee, the L1 base fee and the L1 gas it was charged for. */
  l1GasPrice?: string;
  l1GasUsed?: string;
  l1Fee?: string;
  /** Bedrock and Regolith: the fee scalar as a decimal number (op-geth prints a `big.Float`). */
  l1FeeScalar?: string;
  /** Ecotone and later. */
  l1BlobBaseFee?: string;
  l1BaseFeeScalar?: string;
  l1BlobBaseFeeScalar?: string;
  /** Isthmus and later, when either is not 0. */
  operatorFeeScalar?: string;
  operatorFeeConstant?: string;
  daFootprintGasScalar?: string;
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

/**
 * A creation's contract address: geth derives it from sender and nonce for every creation,
 * successful or not; a deposit has no nonce of its own, and its address is the one its run
 * created, as stored (none for a failed one).
 */
function createdAddress(tx: BlockTransaction, from: Uint8Array, receipt: StoredReceipt): string | null {
  if (tx.to) return null;
  if (isDepositTransaction(tx)) return receipt.contractAddress === undefined ? null : bytesToData(receipt.contractAddress);
  return bytesToData(generateAddress(from, bigIntToUnpaddedBytes(tx.nonce)));
}

/**
 * The OP-stack fields of a receipt (op-geth `marshalReceipt`): a deposit's `depositNonce` and,
 * with it, `depositReceiptVersion`; an ordinary transaction's L1 data fee — `l1GasPrice` (the L1
 * base fee), `l1GasUsed`, `l1Fee`, then Bedrock's and Regolith's `l1FeeScalar` or Ecotone's and
 * Fjord's blob base fee and scalars — and Isthmus' operator fee parameters when either is not 0
 * (op-reth `OpReceiptFieldsBuilder::l1_block_info`); from Jovian, `daFootprintGasScalar` and the
 * transaction's DA footprint as `blobGasUsed` (op-reth's `OpReceiptBuilder`; tracenode gives them
 * to ordinary transactions only, as it gives the L1 fields). An Ethereum receipt has none of them.
 */
function addOpFields(out: RpcReceipt, tx: BlockTransaction, receipt: StoredReceipt): void {
  if (isDepositTransaction(tx)) {
    if (receipt.depositNonce === undefined) return;
    out.depositNonce = bigIntToQuantity(receipt.depositNonce);
    if (receipt.depositReceiptVersion !== undefined) out.depositReceiptVersion = bigIntToQuantity(receipt.depositReceiptVersion);
    return;
  }
  const fee = receipt.l1Fee;
  if (fee !== undefined) {
    out.l1GasPrice = bigIntToQuantity(fee.l1BaseFee);
    out.l1GasUsed = bigIntToQuantity(fee.gasUsed);
    out.l1Fee = bigIntToQuantity(fee.fee);
    if (fee.rules === 'bedrock' || fee.rules === 'regolith') {
      out.l1FeeScalar = l1FeeScalarText(fee.scalar);
    } else {
      out.l1BlobBaseFee = bigIntToQuantity(fee.l1BlobBaseFee);
      out.l1BaseFeeScalar = bigIntToQuantity(fee.baseFeeScalar);
      out.l1BlobBaseFeeScalar = bigIntToQuantity(fee.blobBaseFeeScalar);
    }
  }
  const operator = receipt.operatorFee;
  if (operator !== undefined && (operator.scalar !== 0n || operator.constant !== 0n)) {
    out.operatorFeeScalar = bigIntToQuantity(operator.scalar);
    out.operatorFeeConstant = bigIntToQuantity(operator.constant);
  }
  const da = receipt.daFootprint;
  if (da !== undefined) {
    out.daFootprintGasScalar = bigIntToQuantity(da.scalar);
    out.blobGasUsed = bigIntToQuantity(da.gasUsed);
  }
}

function formatOne(block: Block, tx: BlockTransaction, receipt: StoredReceipt, index: number, firstLogIndex: number): RpcReceipt {
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
    contractAddress: createdAddress(tx, from, receipt),
    logs: receipt.logs.map((log, i) => formatLogAt(log, place, firstLogIndex + i)),
    logsBloom: bytesToData(receiptBloom(receipt)),
    type: bigIntToQuantity(tx.type),
    effectiveGasPrice: bigIntToQuantity(effectiveGasPrice(tx, header.baseFeePerGas)),
  };
  if (receipt.statusOrRoot.length === 32) out.root = bytesToData(receipt.statusOrRoot);
  else out.status = bigIntToQuantity(receipt.statusOrRoot[0] ?? 0);
  if (!isDepositTransaction(tx) && isBlob4844Tx(tx)) {
    out.blobGasUsed = bigIntToQuantity(receipt.blobGasUsed ?? GAS_PER_BLOB * BigInt(tx.blobVersionedHashes.length));
    out.blobGasPrice = bigIntToQuantity(receipt.blobGasPrice ?? header.getBlobGasPrice());
  }
  addOpFields(out, tx, receipt);
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
 * the bench chain kept with their text measured (4.9 KB each). An OP-stack receipt's fields add
 * what as many of the others weigh (~60 bytes each): six or seven L1 fee fields (two more with
 * the operator fee, two with Jovian's DA footprint), a deposit's two.
 */
export function receiptBytes(receipt: RpcReceipt): number {
  let own = 1_300;
  if (receipt.l1Fee !== undefined) own += receipt.operatorFeeScalar === undefined ? 420 : 540;
  if (receipt.depositNonce !== undefined) own += 120;
  if (receipt.daFootprintGasScalar !== undefined) own += 120;
  for (const log of receipt.logs) own += logObjectBytes(log) + LOG_TEXT_BYTES;
  return own + own;
}
