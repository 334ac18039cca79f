import type { Block, BlockHeader } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import type { StoredReceipt } from '../../../chain/receipts.js';
import { blockSize } from '../../../chain/store.js';
import { bigIntToQuantity, bytesToData, hexKey } from '../../../codec/hex.js';
import { formatBlockTransaction, type RpcTransaction } from './formatTransaction.js';
import type { RenderedByBlock } from './rendered.js';

/** A header on the wire (geth `RPCMarshalHeader`). Fork fields appear only when the header has them. */
export interface RpcHeader {
  number: string;
  hash: string;
  parentHash: string;
  nonce: string;
  mixHash: string;
  sha3Uncles: string;
  logsBloom: string;
  stateRoot: string;
  miner: string;
  difficulty: string;
  extraData: string;
  gasLimit: string;
  gasUsed: string;
  timestamp: string;
  transactionsRoot: string;
  receiptsRoot: string;
  /** London (EIP-1559). */
  baseFeePerGas?: string;
  /** Shanghai (EIP-4895). */
  withdrawalsRoot?: string;
  /** Cancun (EIP-4844). */
  blobGasUsed?: string;
  excessBlobGas?: string;
  /** Cancun (EIP-4788). */
  parentBeaconBlockRoot?: string;
  /** Prague (EIP-7685). */
  requestsHash?: string;
}

/** A withdrawal on the wire (amount in gwei). */
export interface RpcWithdrawal {
  index: string;
  validatorIndex: string;
  address: string;
  amount: string;
}

/**
 * A block on the wire (geth `RPCMarshalBlock`). `transactions` holds hashes or full objects, and is
 * absent for uncles. `totalDifficulty` is not emitted: geth dropped it (PR #30386) and the
 * execution-apis fixtures have none.
 */
export interface RpcBlock extends RpcHeader {
  size: string;
  transactions?: string[] | RpcTransaction[];
  uncles: string[];
  withdrawals?: RpcWithdrawal[];
}

/** Renders the header fields of a block, each fork's fields only when the header carries them. */
export function formatHeader(header: BlockHeader): RpcHeader {
  const out: RpcHeader = {
    number: bigIntToQuantity(header.number),
    hash: bytesToData(header.hash()),
    parentHash: bytesToData(header.parentHash),
    nonce: bytesToData(header.nonce),
    mixHash: bytesToData(header.mixHash),
    sha3Uncles: bytesToData(header.uncleHash),
    logsBloom: bytesToData(header.logsBloom),
    stateRoot: bytesToData(header.stateRoot),
    miner: bytesToData(header.coinbase.bytes),
    difficulty: bigIntToQuantity(header.difficulty),
    extraData: bytesToData(header.extraData),
    gasLimit: bigIntToQuantity(header.gasLimit),
    gasUsed: bigIntToQuantity(header.gasUsed),
    timestamp: bigIntToQuantity(header.timestamp),
    transactionsRoot: bytesToData(header.transactionsTrie),
    receiptsRoot: bytesToData(header.receiptTrie),
  };
  if (header.baseFeePerGas !== undefined) out.baseFeePerGas = bigIntToQuantity(header.baseFeePerGas);
  if (header.withdrawalsRoot !== undefined) out.withdrawalsRoot = bytesToData(header.withdrawalsRoot);
  if (header.blobGasUsed !== undefined) out.blobGasUsed = bigIntToQuantity(header.blobGasUsed);
  if (header.excessBlobGas !== undefined) out.excessBlobGas = bigIntToQuantity(header.excessBlobGas);
  if (header.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = bytesToData(header.parentBeaconBlockRoot);
  if (header.requestsHash !== undefined) out.requestsHash = bytesToData(header.requestsHash);
  return out;
}

/**
 * The rendered transaction hashes of a block, kept while the store keeps the decoded block (its
 * recent blocks are cached objects): the head's block is asked for by every poller.
 */
const renderedHashes = new WeakMap<Block, readonly string[]>();
function txHashesOf(block: Block): string[] {
  let hashes = renderedHashes.get(block);
  if (hashes === undefined) {
    hashes = block.transactions.map((tx) => bytesToData(tx.hash()));
    renderedHashes.set(block, hashes);
  }
  return hashes.slice();
}

/**
 * Renders a block. `fullTx` false lists transaction hashes; true renders each transaction with
 * its position. `size` is the length of the block's RLP encoding, as geth's `Block.Size()`. The
 * header's object is extended in place, not spread into a new one (a spread costs more than the
 * header's rendering); the fields come out in the same order. With `kept`, a block is rendered
 * once in each form while kept there, and the answer is shared: never changed. `receipts`, the
 * block's own, render its OP-stack deposits in full (`formatBlockTransaction`); they are stored
 * with the block, so the rendering stays the block's for as long as its hash names it.
 */
export function formatBlock(block: Block, fullTx: boolean, kept?: RenderedByBlock<RpcBlock>, receipts?: readonly StoredReceipt[]): RpcBlock {
  if (kept !== undefined) return kept.item(hexKey(block.hash()), fullTx ? 1 : 0, () => formatBlock(block, fullTx, undefined, receipts));
  const out = formatHeader(block.header) as RpcBlock;
  out.size = bigIntToQuantity(blockSize(block));
  out.transactions = fullTx ? block.transactions.map((_, index) => formatBlockTransaction(block, index, receipts) as RpcTransaction) : txHashesOf(block);
  out.uncles = block.uncleHeaders.map((uncle) => bytesToData(uncle.hash()));
  if (block.withdrawals !== undefined) {
    out.withdrawals = block.withdrawals.map((w) => ({
      index: bigIntToQuantity(w.index),
      validatorIndex: bigIntToQuantity(w.validatorIndex),
      address: bytesToData(w.address.bytes),
      amount: bigIntToQuantity(w.amount),
    }));
  }
  return out;
}

/**
 * Renders an uncle header the way geth does (`RPCMarshalBlock(types.NewBlockWithHeader(uncle),
 * false, false)`, docs/methods.md#uncles): the header fields, `uncles: []`, no `transactions`
 * key, and `size` = length of RLP([header, [], []]), i.e. of an empty block around the header.
 */
export function formatUncle(uncle: BlockHeader): RpcBlock {
  return {
    ...formatHeader(uncle),
    size: bigIntToQuantity(RLP.encode([uncle.raw(), [], []]).length),
    uncles: [],
  };
}

/**
 * Estimated bytes of a block kept rendered (`rendered.ts`), twice (object and text): its header's
 * fields (the bloom's 514 characters the most), and its transactions — a hash each, or in full
 * their input's hex and ~1.1 KB of fields and what V8 adds around them. From measuring 400 blocks
 * of the bench chain kept with their text: 6.9 KB a block with hashes, 25 KB in full. An OP-stack
 * deposit in full weighs about as much as a signed transaction: its `sourceHash` (and `mint`) for
 * their fee caps, chain id and parity.
 */
export function blockBytes(block: RpcBlock): number {
  let own = 2_800 + 80 * block.uncles.length + 200 * (block.withdrawals?.length ?? 0);
  for (const tx of block.transactions ?? []) own += typeof tx === 'string' ? 100 : 1_100 + tx.input.length + (tx.accessList?.length ?? 0) * 200;
  return own + own;
}
