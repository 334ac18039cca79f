import type { Block } from '@ethereumjs/block';
import { bytesToHex, createContractAddress, equalsBytes, hexToBytes } from '@ethereumjs/util';
import { encodeReceipt, type TxReceipt } from '@ethereumjs/vm';
import type { StoredLog, StoredReceipt } from '../chain/receipts.js';
import { orderedTrieRoot } from '../codec/orderedTrieRoot.js';
import { type Call, type Upstream, UpstreamError, UpstreamRpcError } from './upstream.js';
import { hexString } from './upstreamBlocks.js';

/**
 * The receipts of the first block of an archive that starts at block N: that block is not
 * executed here (its parent's state is not held), so its receipts are the upstream's
 * (`eth_getBlockReceipts`, else `eth_getTransactionReceipt` of each transaction), let in only
 * when their consensus encoding (status or post-state root, cumulative gas, logs bloom, logs)
 * gives the block's receiptsRoot. What the root does not cover is derived here, not taken: each
 * transaction's gas (the step of the cumulative gas), the created contract's address (sender and
 * nonce) and the blob gas and its price (the transaction's blobs, the header's excess blob gas).
 */

/** Gas a blob takes (EIP-4844 GAS_PER_BLOB). */
const GAS_PER_BLOB = 131072n;

type Json = Record<string, unknown>;

/** Block N's receipts, checked against its receiptsRoot. */
export async function anchorReceipts(upstream: Upstream, block: Block): Promise<StoredReceipt[]> {
  if (block.transactions.length === 0) return [];
  const jsons = await fetchReceipts(upstream, block);
  if (jsons.length !== block.transactions.length) {
    throw new UpstreamError(
      `the upstream answered ${jsons.length} receipts for block ${block.header.number}, which has ${block.transactions.length} transactions`,
    );
  }
  const consensus = jsons.map((json, i) => consensusReceipt(json, i));
  const root = orderedTrieRoot(consensus.map((r, i) => encodeReceipt(r, block.transactions[i].type)));
  if (!equalsBytes(root, block.header.receiptTrie)) {
    throw new UpstreamError(
      `the upstream's receipts of block ${block.header.number} give receiptsRoot ${bytesToHex(root)}, its header names ${bytesToHex(block.header.receiptTrie)}`,
    );
  }
  return consensus.map((r, i) => storedReceipt(r, i === 0 ? 0n : consensus[i - 1].cumulativeBlockGasUsed, block, i));
}

async function fetchReceipts(upstream: Upstream, block: Block): Promise<Json[]> {
  let answer: unknown;
  try {
    answer = await upstream.call('eth_getBlockReceipts', [bytesToHex(block.hash())]);
  } catch (err) {
    if (!(err instanceof UpstreamRpcError)) throw err;
    answer = await upstream.batch(block.transactions.map((tx): Call => ({ method: 'eth_getTransactionReceipt', params: [bytesToHex(tx.hash())] })));
  }
  if (!Array.isArray(answer) || !answer.every((r) => typeof r === 'object' && r !== null)) {
    throw new UpstreamError(`the upstream has no receipts of block ${block.header.number}`);
  }
  return answer as Json[];
}

/** A receipt's consensus fields, as @ethereumjs encodes them for the receipts trie. */
function consensusReceipt(json: Json, i: number): TxReceipt {
  const what = (field: string) => `receipt ${i}'s ${field}`;
  if (!Array.isArray(json.logs)) throw new UpstreamError(`upstream answered a malformed ${what('logs')}`);
  const logs = json.logs.map((log: Json): StoredLog => {
    if (!Array.isArray(log?.topics)) throw new UpstreamError(`upstream answered a malformed ${what('log')}`);
    return [bytes(log.address, what('log address')), log.topics.map((t: unknown) => bytes(t, what('log topic'))), bytes(log.data, what('log data'))];
  });
  const base = {
    cumulativeBlockGasUsed: BigInt(hexString(json.cumulativeGasUsed, what('cumulativeGasUsed'))),
    bitvector: bytes(json.logsBloom, what('logsBloom')),
    logs,
  };
  if (json.status !== undefined && json.status !== null) return { ...base, status: Number(BigInt(hexString(json.status, what('status')))) as 0 | 1 };
  return { ...base, stateRoot: bytes(json.root, what('root')) };
}

/** What the store keeps of a receipt: the consensus fields and what is derived from the block. */
function storedReceipt(r: TxReceipt, previousCumulative: bigint, block: Block, i: number): StoredReceipt {
  const tx = block.transactions[i];
  const stored: StoredReceipt = {
    statusOrRoot: 'status' in r ? Uint8Array.of(r.status) : (r as { stateRoot: Uint8Array }).stateRoot,
    cumulativeGasUsed: r.cumulativeBlockGasUsed,
    gasUsed: r.cumulativeBlockGasUsed - previousCumulative,
    logs: r.logs as StoredLog[],
  };
  if (tx.to === undefined) stored.contractAddress = createContractAddress(tx.getSenderAddress(), tx.nonce).bytes;
  const blobs = (tx as { blobVersionedHashes?: unknown[] }).blobVersionedHashes;
  if (blobs !== undefined) {
    stored.blobGasUsed = BigInt(blobs.length) * GAS_PER_BLOB;
    stored.blobGasPrice = block.header.getBlobGasPrice();
  }
  return stored;
}

function bytes(value: unknown, what: string): Uint8Array {
  return hexToBytes(hexString(value, what) as `0x${string}`);
}
