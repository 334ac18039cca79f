import type { Block, BlockHeader } from '@ethereumjs/block';
import { verifyMerkleProof } from '@ethereumjs/mpt';
import { bytesToHex, createAccountFromRLP, createContractAddress, equalsBytes, hexToBytes } from '@ethereumjs/util';
import type { TxReceipt } from '@ethereumjs/vm';
import { DEPOSIT_TX_TYPE } from '../chain/op/depositTx.js';
import { isActive, type OpRollup } from '../chain/op/rollup.js';
import { encodeConsensusReceipt, type StoredLog, type StoredReceipt } from '../chain/receipts.js';
import { keccak256 } from '../codec/keccak.js';
import { orderedTrieRoot } from '../codec/orderedTrieRoot.js';
import { l1FieldsFromInfo } from '../execution/op/l1InfoFees.js';
import { type Call, type Upstream, UpstreamError, UpstreamRpcError } from './upstream.js';
import { hexString } from './upstreamBlocks.js';
import { parseProof } from './upstreamState.js';

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

/**
 * Block N's receipts, checked against its receiptsRoot. On an OP-stack chain (`op`) a deposit's
 * receipt carries its `depositNonce` and `depositReceiptVersion` in the root (as op-geth encodes
 * it) from Canyon; before, its nonce is derived from a proof (`deriveRegolithNonces`). The L1 and
 * operator fee fields are in no root: they are derived from the block's L1-info
 * deposit as op-geth derives them (`execution/op/l1InfoFees.ts`), not taken from the upstream's
 * JSON, and left out for a block that has none (anvil's).
 */
export async function anchorReceipts(upstream: Upstream, block: Block, op?: OpRollup): Promise<StoredReceipt[]> {
  const opStack = op !== undefined;
  if (block.transactions.length === 0) return [];
  const jsons = await fetchReceipts(upstream, block);
  if (jsons.length !== block.transactions.length) {
    throw new UpstreamError(
      `the upstream answered ${jsons.length} receipts for block ${block.header.number}, which has ${block.transactions.length} transactions`,
    );
  }
  const consensus = jsons.map((json, i) => consensusReceipt(json, i));
  const deposits = jsons.map((json, i) => (opStack && (block.transactions[i].type as number) === DEPOSIT_TX_TYPE ? depositFields(json, i) : undefined));
  const time = block.header.timestamp;
  if (op !== undefined && isActive(op, 'regolith', time) && !isActive(op, 'canyon', time)) await deriveRegolithNonces(upstream, block, deposits);
  const stored = consensus.map((r, i) => storedReceipt(r, i === 0 ? 0n : consensus[i - 1].cumulativeBlockGasUsed, block, i, deposits[i]));
  const root = orderedTrieRoot(stored.map((r, i) => encodeConsensusReceipt(r, block.transactions[i].type, consensus[i].bitvector)));
  if (!equalsBytes(root, block.header.receiptTrie)) {
    throw new UpstreamError(
      `the upstream's receipts of block ${block.header.number} give receiptsRoot ${bytesToHex(root)}, its header names ${bytesToHex(block.header.receiptTrie)}`,
    );
  }
  const l1 = op === undefined ? undefined : l1FieldsFromInfo(op, block);
  return stored.map((r, i) => {
    const fees = l1?.[i];
    return fees === undefined ? r : { ...r, ...fees };
  });
}

/** A deposit receipt's OP fields from its JSON (Regolith's nonce, Canyon's version), as op-geth prints them. */
function depositFields(json: Json, i: number): { depositNonce?: bigint; depositReceiptVersion?: bigint } {
  const out: { depositNonce?: bigint; depositReceiptVersion?: bigint } = {};
  if (json.depositNonce !== undefined && json.depositNonce !== null) out.depositNonce = BigInt(hexString(json.depositNonce, `receipt ${i}'s depositNonce`));
  if (json.depositReceiptVersion !== undefined && json.depositReceiptVersion !== null) {
    out.depositReceiptVersion = BigInt(hexString(json.depositReceiptVersion, `receipt ${i}'s depositReceiptVersion`));
  }
  return out;
}

/**
 * Between Regolith and Canyon a deposit's nonce is in no root (op-geth hashed those receipts
 * without it: `chain/receipts.ts`). It is derived instead: its sender's nonce after block N,
 * proven against N's state root, less the transactions the sender has at and after it in the
 * block (each deposit and each signed transaction counts one). An upstream naming another nonce
 * is refused.
 */
async function deriveRegolithNonces(upstream: Upstream, block: Block, deposits: Array<{ depositNonce?: bigint } | undefined>): Promise<void> {
  const bySender = new Map<string, number[]>();
  for (const [i, tx] of block.transactions.entries()) {
    const sender = bytesToHex(tx.getSenderAddress().bytes);
    const indices = bySender.get(sender);
    if (indices === undefined) bySender.set(sender, [i]);
    else indices.push(i);
  }
  for (const [sender, indices] of bySender) {
    if (!indices.some((i) => deposits[i] !== undefined)) continue;
    const after = await provenNonce(upstream, sender, block.header);
    for (const [k, i] of indices.entries()) {
      const deposit = deposits[i];
      if (deposit === undefined) continue;
      const nonce = after - BigInt(indices.length - k);
      if (deposit.depositNonce !== undefined && deposit.depositNonce !== nonce) {
        throw new UpstreamError(
          `the upstream's receipt ${i} of block ${block.header.number} names depositNonce ${deposit.depositNonce}; its sender ${sender}'s proven nonce gives ${nonce}`,
        );
      }
      deposit.depositNonce = nonce;
    }
  }
}

/** The nonce of `address` after `header`'s block, from the upstream's proof checked against the header's state root. */
async function provenNonce(upstream: Upstream, address: string, header: BlockHeader): Promise<bigint> {
  const proof = parseProof(await upstream.call('eth_getProof', [address, [], { blockHash: bytesToHex(header.hash()) }]), 0);
  const first = proof.accountProof[0];
  if (first === undefined || !equalsBytes(keccak256(first), header.stateRoot)) {
    throw new UpstreamError(`the upstream's proof of ${address} at block ${header.number} does not start at its state root`);
  }
  let leaf: Uint8Array | null;
  try {
    leaf = await verifyMerkleProof(keccak256(hexToBytes(address as `0x${string}`)), proof.accountProof);
  } catch (err) {
    throw new UpstreamError(
      `the upstream's proof of ${address} at block ${header.number} does not verify: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return leaf === null ? 0n : createAccountFromRLP(leaf).nonce;
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
function storedReceipt(
  r: TxReceipt,
  previousCumulative: bigint,
  block: Block,
  i: number,
  deposit?: { depositNonce?: bigint; depositReceiptVersion?: bigint },
): StoredReceipt {
  const tx = block.transactions[i];
  const stored: StoredReceipt = {
    statusOrRoot: 'status' in r ? Uint8Array.of(r.status) : (r as { stateRoot: Uint8Array }).stateRoot,
    cumulativeGasUsed: r.cumulativeBlockGasUsed,
    gasUsed: r.cumulativeBlockGasUsed - previousCumulative,
    logs: r.logs as StoredLog[],
  };
  if (deposit !== undefined) {
    Object.assign(stored, deposit);
    // A deposit carries no nonce: a creating one's contract is named by the nonce its receipt gives (op-geth).
    const succeeded = 'status' in r && r.status === 1;
    if (tx.to === undefined && succeeded && deposit.depositNonce !== undefined) {
      stored.contractAddress = createContractAddress(tx.getSenderAddress(), deposit.depositNonce).bytes;
    }
    return stored;
  }
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
