import type { BlockHeader } from '@ethereumjs/block';
import type { Log } from '@ethereumjs/evm';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, concatBytes, KECCAK256_RLP_ARRAY } from '@ethereumjs/util';
import { sha256 } from 'ethereum-cryptography/sha256.js';
import { keccak256 } from '../../codec/keccak.js';
import { orderedTrieRoot } from '../../codec/orderedTrieRoot.js';
import { encodeTx, type TxFields, type TxType, unsignedTxFields } from '../typedTransaction.js';
import { buildHeader, type SimBlockEnv } from './plan.js';
import type { SimulatedBlock, SimulatedCall, SimulatedTransaction } from './result.js';

/**
 * A simulated block's contents as a client encodes them (ethereum/go-ethereum
 * `internal/ethapi/simulate.go` processBlock, `core/types`): the unsigned transactions of its
 * calls, their receipts, the transactions, receipts and withdrawals tries, the logs bloom, the
 * EIP-7685 requests hash, the header, its hash and the block's size.
 */

/** A call's transaction with its encodings. */
export interface BuiltTx extends SimulatedTransaction {
  encoded: Uint8Array;
  /** The block body's element: the encoding of a typed transaction, the field list of a legacy one. */
  bodyItem: Uint8Array | TxFields;
}

/** What a receipt records of a call. */
export interface ReceiptParts {
  type: TxType;
  success: boolean;
  cumulativeGasUsed: bigint;
  logs: Log[];
}

/** What running a block's calls leaves for its header. */
export interface BlockRun {
  txs: BuiltTx[];
  receipts: ReceiptParts[];
  calls: SimulatedCall[];
  /** The logs of the calls that succeeded, in order. */
  logs: Log[];
  /** EIP-7685 requests, each `type ‖ data`. */
  requests: Uint8Array[];
  gasUsed: bigint;
  blobGasUsed: bigint;
}

/**
 * The unsigned transaction geth's `ToTransaction(DynamicFeeTxType)` builds of a call with its
 * defaults (`args`): a set-code or blob transaction when it names authorizations or blobs, else
 * legacy with a gas price, else EIP-1559.
 */
export function simulatedTransaction(args: SimulatedTransaction['args'], from: Uint8Array): BuiltTx {
  const type: TxType = args.authorizationList !== undefined ? 4 : args.blobVersionedHashes !== undefined ? 3 : args.gasPrice === undefined ? 2 : 0;
  const fields = unsignedTxFields(type, args);
  const encoded = encodeTx(type, fields);
  return { type, hash: keccak256(encoded), from, args, encoded, bodyItem: type === 0 ? fields : encoded };
}

/**
 * The block after its calls, with `stateRoot` the state they and the block's credits left; its
 * @ethereumjs header too, of which the next block takes its base fee and excess blob gas.
 */
export async function assembleBlock(
  env: SimBlockEnv,
  run: BlockRun,
  stateRoot: Uint8Array,
  parentHash: Uint8Array,
): Promise<{ block: SimulatedBlock; header: BlockHeader }> {
  const { ctx } = env;
  const { common } = ctx.fork;
  const isShanghai = common.isActivatedEIP(4895);
  const isCancun = common.isActivatedEIP(4844);
  const isPrague = common.isActivatedEIP(7685);
  const withdrawalsRaw = env.withdrawals.map((w) => [
    bigIntToUnpaddedBytes(w.index),
    bigIntToUnpaddedBytes(w.validatorIndex),
    w.address,
    bigIntToUnpaddedBytes(w.amount),
  ]);
  const { header, raw } = buildHeader(
    {
      parentHash,
      uncleHash: KECCAK256_RLP_ARRAY,
      coinbase: ctx.coinbase,
      stateRoot,
      transactionsTrie: orderedTrieRoot(run.txs.map((t) => t.encoded)),
      receiptTrie: orderedTrieRoot(run.receipts.map(encodeReceipt)),
      logsBloom: logsBloom(run.logs),
      difficulty: ctx.difficulty,
      number: ctx.number,
      gasLimit: ctx.gasLimit,
      gasUsed: run.gasUsed,
      timestamp: ctx.timestamp,
      extraData: new Uint8Array(),
      mixHash: ctx.prevRandao,
      nonce: new Uint8Array(8),
      baseFeePerGas: ctx.baseFee,
      withdrawalsRoot: isShanghai ? orderedTrieRoot(withdrawalsRaw.map((w) => RLP.encode(w))) : undefined,
      blobGasUsed: isCancun ? run.blobGasUsed : undefined,
      excessBlobGas: env.excessBlobGas,
      parentBeaconBlockRoot: env.beaconRoot,
      requestsHash: isPrague ? sha256(concatBytes(...run.requests.map((r) => sha256(r)))) : undefined,
    },
    common,
  );
  const body: unknown[] = [raw, run.txs.map((t) => t.bodyItem), []];
  if (isShanghai) body.push(withdrawalsRaw);
  const block: SimulatedBlock = {
    number: ctx.number,
    hash: keccak256(RLP.encode(raw)),
    parentHash,
    mixHash: ctx.prevRandao,
    logsBloom: header.logsBloom,
    stateRoot,
    miner: ctx.coinbase,
    difficulty: ctx.difficulty,
    size: BigInt(RLP.encode(body as never).length),
    gasLimit: ctx.gasLimit,
    gasUsed: run.gasUsed,
    timestamp: ctx.timestamp,
    transactionsRoot: header.transactionsTrie,
    receiptsRoot: header.receiptTrie,
    baseFeePerGas: ctx.baseFee,
    withdrawals: isShanghai ? { root: header.withdrawalsRoot!, list: env.withdrawals } : undefined,
    blobs: isCancun ? { blobGasUsed: run.blobGasUsed, excessBlobGas: env.excessBlobGas!, parentBeaconBlockRoot: env.beaconRoot! } : undefined,
    requestsHash: isPrague ? header.requestsHash! : undefined,
    transactions: run.txs.map(({ type, hash, from, args }) => ({ type, hash, from, args })),
    calls: run.calls,
  };
  return { block, header };
}

/** A receipt's encoding: `type ‖ RLP([status, cumulative gas, bloom, logs])`, no type byte for a legacy one. */
function encodeReceipt(r: ReceiptParts): Uint8Array {
  const status = bigIntToUnpaddedBytes(r.success ? 1n : 0n);
  const rlp = RLP.encode([status, bigIntToUnpaddedBytes(r.cumulativeGasUsed), logsBloom(r.logs), r.logs as never]);
  return r.type === 0 ? rlp : concatBytes(Uint8Array.of(r.type), rlp);
}

/** The logs bloom (Yellow Paper §4.3.1): each log adds its address and topics, three bits each. */
function logsBloom(logs: Log[]): Uint8Array {
  const bloom = new Uint8Array(256);
  const add = (value: Uint8Array) => {
    const h = keccak256(value);
    for (let i = 0; i < 6; i += 2) {
      const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
      bloom[255 - (bit >> 3)]! |= 1 << (bit & 7);
    }
  };
  for (const [address, topics] of logs) {
    add(address);
    for (const t of topics) add(t);
  }
  return bloom;
}
