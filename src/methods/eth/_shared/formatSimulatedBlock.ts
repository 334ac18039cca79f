import { KECCAK256_RLP_ARRAY } from '@ethereumjs/util';
import { bigIntToQuantity, bytesToData } from '../../../codec/hex.js';
import { revertMessage } from '../../../execution/revert.js';
import type { SimLog, SimulatedBlock, SimulatedCall, SimulatedTransaction } from '../../../execution/simulate/result.js';

/**
 * eth_simulateV1's blocks as geth answers them (ethereum/go-ethereum `internal/ethapi/simulate.go`:
 * `RPCMarshalBlock` of each block with its `calls`, `simCallResult`): the header fields, the
 * transactions (hashes, or the objects with `returnFullTransactions`), and per call `returnData`,
 * `logs`, `gasUsed`, `maxUsedGas`, `status` and, for a failed call, `error`: code 3 with the
 * revert data for a revert, -32015 (geth's `errCodeVMError`) for any other failure.
 */

/** JSON-RPC error code of a simulated call that reverted (geth's `errCodeReverted` in results). */
const REVERTED = 3;
/** JSON-RPC error code of a simulated call that failed otherwise (geth's `errCodeVMError`). */
const VM_ERROR = -32015;
/** geth's note on a failure when the call's gas was lowered to the request's remaining budget. */
const GAS_CAPPED = " (gas limit was capped by the RPC server's global gas cap)";

/** One simulated block as geth's answer has it. */
export function formatSimulatedBlock(block: SimulatedBlock, fullTransactions: boolean): Record<string, unknown> {
  const where = { blockHash: bytesToData(block.hash), blockNumber: bigIntToQuantity(block.number), blockTimestamp: bigIntToQuantity(block.timestamp) };
  const out: Record<string, unknown> = {
    number: bigIntToQuantity(block.number),
    hash: bytesToData(block.hash),
    parentHash: bytesToData(block.parentHash),
    nonce: '0x0000000000000000',
    mixHash: bytesToData(block.mixHash),
    sha3Uncles: bytesToData(KECCAK256_RLP_ARRAY),
    logsBloom: bytesToData(block.logsBloom),
    stateRoot: bytesToData(block.stateRoot),
    miner: bytesToData(block.miner),
    difficulty: bigIntToQuantity(block.difficulty),
    extraData: '0x',
    size: bigIntToQuantity(block.size),
    gasLimit: bigIntToQuantity(block.gasLimit),
    gasUsed: bigIntToQuantity(block.gasUsed),
    timestamp: bigIntToQuantity(block.timestamp),
    transactionsRoot: bytesToData(block.transactionsRoot),
    receiptsRoot: bytesToData(block.receiptsRoot),
    transactions: block.transactions.map((tx, i) => (fullTransactions ? formatSimulatedTransaction(tx, i, where, block.baseFeePerGas) : bytesToData(tx.hash))),
    uncles: [],
    calls: block.calls.map((call, i) => formatSimulatedCall(call, block.transactions[i]!, i, where)),
  };
  if (block.baseFeePerGas !== undefined) out.baseFeePerGas = bigIntToQuantity(block.baseFeePerGas);
  if (block.withdrawals !== undefined) {
    out.withdrawalsRoot = bytesToData(block.withdrawals.root);
    out.withdrawals = block.withdrawals.list.map((w) => ({
      index: bigIntToQuantity(w.index),
      validatorIndex: bigIntToQuantity(w.validatorIndex),
      address: bytesToData(w.address),
      amount: bigIntToQuantity(w.amount),
    }));
  }
  if (block.blobs !== undefined) {
    out.blobGasUsed = bigIntToQuantity(block.blobs.blobGasUsed);
    out.excessBlobGas = bigIntToQuantity(block.blobs.excessBlobGas);
    out.parentBeaconBlockRoot = bytesToData(block.blobs.parentBeaconBlockRoot);
  }
  if (block.requestsHash !== undefined) out.requestsHash = bytesToData(block.requestsHash);
  return out;
}

/** Where a transaction or log stands: its block's hash, number and time. */
type Where = { blockHash: string; blockNumber: string; blockTimestamp: string };

/** A call's result: geth's `ExecutionResult.Return()` is nothing when the run failed (the revert data is in `error`). */
function formatSimulatedCall(call: SimulatedCall, tx: SimulatedTransaction, index: number, where: Where): Record<string, unknown> {
  const { result } = call;
  const out: Record<string, unknown> = {
    returnData: result.failure === undefined ? bytesToData(result.returnValue) : '0x',
    logs: call.logs.map((log) => formatSimulatedLog(log, tx, index, where)),
    gasUsed: bigIntToQuantity(result.gasUsed),
    maxUsedGas: bigIntToQuantity(result.peakGasUsed),
    status: result.failure === undefined ? '0x1' : '0x0',
  };
  if (result.failure?.kind === 'revert') {
    out.error = { message: revertMessage(result.returnValue), code: REVERTED, data: bytesToData(result.returnValue) };
  } else if (result.failure !== undefined) {
    out.error = { message: result.failure.message + (call.gasCapped ? GAS_CAPPED : ''), code: VM_ERROR };
  }
  return out;
}

function formatSimulatedLog(log: SimLog, tx: SimulatedTransaction, index: number, where: Where): Record<string, unknown> {
  return {
    address: bytesToData(log.address),
    topics: log.topics.map(bytesToData),
    data: bytesToData(log.data),
    blockNumber: where.blockNumber,
    transactionHash: bytesToData(tx.hash),
    transactionIndex: bigIntToQuantity(index),
    blockHash: where.blockHash,
    blockTimestamp: where.blockTimestamp,
    logIndex: bigIntToQuantity(log.index),
    removed: false,
  };
}

/**
 * A transaction object as geth's `RPCMarshalBlock` renders an unsigned transaction of the block:
 * zero signature, and for a typed one the effective gas price (`min(tip + base fee, fee cap)`, the
 * fee cap without a base fee) after its index.
 */
function formatSimulatedTransaction(tx: SimulatedTransaction, index: number, where: Where, baseFee: bigint | undefined): Record<string, unknown> {
  const a = tx.args;
  const json: Record<string, unknown> = {
    ...where,
    from: bytesToData(tx.from),
    gas: bigIntToQuantity(a.gas),
    hash: bytesToData(tx.hash),
    input: bytesToData(a.data ?? new Uint8Array()),
    nonce: bigIntToQuantity(a.nonce),
    to: a.to === undefined ? null : bytesToData(a.to),
    value: bigIntToQuantity(a.value),
    v: '0x0',
    r: '0x0',
    s: '0x0',
  };
  if (tx.type === 4) {
    json.authorizationList = (a.authorizationList ?? []).map((auth) => ({
      chainId: bigIntToQuantity(auth.chainId),
      address: bytesToData(auth.address),
      nonce: bigIntToQuantity(auth.nonce),
      yParity: bigIntToQuantity(auth.yParity),
      r: bigIntToQuantity(auth.r),
      s: bigIntToQuantity(auth.s),
    }));
  } else if (tx.type === 3) {
    json.maxFeePerBlobGas = bigIntToQuantity(a.maxFeePerBlobGas ?? 0n);
    json.blobVersionedHashes = (a.blobVersionedHashes ?? []).map(bytesToData);
  }
  json.type = bigIntToQuantity(BigInt(tx.type));
  if (tx.type === 0) {
    json.gasPrice = bigIntToQuantity(a.gasPrice ?? 0n);
    json.transactionIndex = bigIntToQuantity(index);
    return json;
  }
  const cap = a.maxFeePerGas ?? 0n;
  const tip = a.maxPriorityFeePerGas ?? 0n;
  json.maxFeePerGas = bigIntToQuantity(cap);
  json.maxPriorityFeePerGas = bigIntToQuantity(tip);
  json.accessList = (a.accessList ?? []).map((e) => ({ address: bytesToData(e.address), storageKeys: e.storageKeys.map(bytesToData) }));
  json.chainId = bigIntToQuantity(a.chainId);
  json.yParity = '0x0';
  json.transactionIndex = bigIntToQuantity(index);
  json.gasPrice = bigIntToQuantity(baseFee === undefined ? cap : tip + baseFee < cap ? tip + baseFee : cap);
  return json;
}
