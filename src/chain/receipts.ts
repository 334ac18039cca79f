import { type Input, RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToBigInt, concatBytes } from '@ethereumjs/util';
import type { L1FeeParams, L1FeeRules } from './op/l1Info.js';

/** A log as stored: emitting address, topics, data. */
export type StoredLog = [address: Uint8Array, topics: Uint8Array[], data: Uint8Array];

/**
 * A transaction receipt as the chain store keeps it. Consensus fields (status or pre-Byzantium
 * post-state root, cumulative gas, logs) plus what the importer learnt while executing, so that
 * serving never re-executes: this transaction's gas, created contract, blob gas.
 */
export interface StoredReceipt {
  /** 1/0 status byte (Byzantium+), or the 32-byte intermediate state root before it. */
  statusOrRoot: Uint8Array;
  cumulativeGasUsed: bigint;
  gasUsed: bigint;
  logs: StoredLog[];
  contractAddress?: Uint8Array;
  blobGasUsed?: bigint;
  blobGasPrice?: bigint;
  /** OP stack, a deposit: its sender's nonce before it (from Regolith) and the receipt's version (from Canyon). */
  depositNonce?: bigint;
  depositReceiptVersion?: bigint;
  /** OP stack, an ordinary transaction: the L1 data fee it paid and the L1 attributes it was computed from. */
  l1Fee?: StoredL1Fee;
  /** OP stack from Isthmus, an ordinary transaction: the operator fee's parameters at its place in the block. */
  operatorFee?: { scalar: bigint; constant: bigint };
  /** OP stack from Jovian, an ordinary transaction: its data-availability footprint and the gas scalar it was computed with. */
  daFootprint?: { gasUsed: bigint; scalar: bigint };
}

/** The L1 data fee of an OP-stack transaction, as the executor charged it (`execution/op/l1Cost.ts`), with the L1 attributes it was computed from. */
export interface StoredL1Fee extends L1FeeParams {
  /** The formula: Bedrock's, Regolith's (overhead and scalar), Ecotone's or Fjord's (the two scalars and the blob base fee). */
  rules: L1FeeRules;
  fee: bigint;
  /** The receipt's `l1GasUsed`. */
  gasUsed: bigint;
}

const L1_RULES: readonly L1FeeRules[] = ['bedrock', 'regolith', 'ecotone', 'fjord'];
/** The tag of a stored receipt's OP fields: a deposit's, or an ordinary transaction's fees. */
const OP_DEPOSIT = 0;
const OP_FEES = 1;

/**
 * A receipt's consensus encoding (EIP-2718): its type byte (none for a legacy one), then
 * rlp([status — 0x01, or the empty string for a failure — or the post-state root before
 * Byzantium, cumulative gas, bloom, logs]); an OP-stack deposit's with its nonce (from Regolith)
 * and version (from Canyon) after the logs, as op-geth encodes it.
 *
 * `use` tells where the bytes go. op-geth's receipts root (`Receipts.EncodeIndex`) counts a
 * deposit's nonce only with its version: a Regolith receipt before Canyon is hashed without its
 * nonce (the bug Canyon's receipt version fixed), while its binary form (`MarshalBinary`, what
 * `debug_getRawReceipts` gives) carries the nonce.
 */
export function encodeConsensusReceipt(
  r: Pick<StoredReceipt, 'statusOrRoot' | 'cumulativeGasUsed' | 'logs' | 'depositNonce' | 'depositReceiptVersion'>,
  type: number,
  bloom: Uint8Array,
  use: 'root' | 'binary' = 'root',
): Uint8Array {
  const status = r.statusOrRoot.length === 32 ? r.statusOrRoot : r.statusOrRoot[0] === 1 ? Uint8Array.of(1) : new Uint8Array();
  const fields: Input[] = [status, bigIntToUnpaddedBytes(r.cumulativeGasUsed), bloom, r.logs];
  const hashedNonce = use === 'binary' || r.depositReceiptVersion !== undefined;
  if (r.depositNonce !== undefined && hashedNonce) fields.push(bigIntToUnpaddedBytes(r.depositNonce));
  if (r.depositReceiptVersion !== undefined) fields.push(bigIntToUnpaddedBytes(r.depositReceiptVersion));
  const body = RLP.encode(fields);
  return type === 0 ? body : concatBytes(Uint8Array.of(type), body);
}

/** RLP of a block's receipts (our own storage format, not the consensus encoding). */
export function encodeReceipts(receipts: readonly StoredReceipt[]): Uint8Array {
  return RLP.encode(
    receipts.map((r) => [
      r.statusOrRoot,
      bigIntToUnpaddedBytes(r.cumulativeGasUsed),
      bigIntToUnpaddedBytes(r.gasUsed),
      r.logs,
      r.contractAddress ?? new Uint8Array(),
      r.blobGasUsed === undefined ? new Uint8Array() : [bigIntToUnpaddedBytes(r.blobGasUsed), bigIntToUnpaddedBytes(r.blobGasPrice ?? 0n)],
      ...opFields(r),
    ]),
  );
}

const n = bigIntToUnpaddedBytes;
/** An OP receipt's fields as a seventh item (none for an Ethereum receipt, whose encoding stays as it was). */
function opFields(r: StoredReceipt): Input[] {
  if (r.depositNonce !== undefined || r.depositReceiptVersion !== undefined) {
    const fields: Input[] = [n(BigInt(OP_DEPOSIT)), r.depositNonce === undefined ? [] : [n(r.depositNonce)]];
    if (r.depositReceiptVersion !== undefined) fields.push([n(r.depositReceiptVersion)]);
    return [fields];
  }
  if (r.l1Fee === undefined) return [];
  const f = r.l1Fee;
  const fields: Input[] = [
    n(BigInt(OP_FEES)),
    n(BigInt(L1_RULES.indexOf(f.rules))),
    ...[f.fee, f.gasUsed, f.l1BaseFee, f.overhead, f.scalar, f.l1BlobBaseFee, f.baseFeeScalar, f.blobBaseFeeScalar].map(n),
  ];
  if (r.operatorFee !== undefined || r.daFootprint !== undefined)
    fields.push(r.operatorFee === undefined ? [] : [n(r.operatorFee.scalar), n(r.operatorFee.constant)]);
  if (r.daFootprint !== undefined) fields.push([n(r.daFootprint.gasUsed), n(r.daFootprint.scalar)]);
  return [fields];
}

/** Reads back {@link opFields}. */
function readOpFields(receipt: StoredReceipt, fields: Uint8Array[] | undefined): void {
  if (fields === undefined) return;
  const tag = bytesToBigInt(fields[0]);
  if (tag === BigInt(OP_DEPOSIT)) {
    const [, nonce, version] = fields as unknown as [Uint8Array, Uint8Array[], Uint8Array[] | undefined];
    if (nonce.length > 0) receipt.depositNonce = bytesToBigInt(nonce[0]);
    if (version !== undefined) receipt.depositReceiptVersion = bytesToBigInt(version[0]);
    return;
  }
  const [, rules, fee, gasUsed, l1BaseFee, overhead, scalar, l1BlobBaseFee, baseFeeScalar, blobBaseFeeScalar, operator, da] = fields as unknown as [
    ...Uint8Array[],
    Uint8Array[] | undefined,
    Uint8Array[] | undefined,
  ];
  const big = (b: unknown) => bytesToBigInt(b as Uint8Array);
  receipt.l1Fee = {
    rules: L1_RULES[Number(big(rules))],
    fee: big(fee),
    gasUsed: big(gasUsed),
    l1BaseFee: big(l1BaseFee),
    overhead: big(overhead),
    scalar: big(scalar),
    l1BlobBaseFee: big(l1BlobBaseFee),
    baseFeeScalar: big(baseFeeScalar),
    blobBaseFeeScalar: big(blobBaseFeeScalar),
  };
  if (Array.isArray(operator) && operator.length === 2) receipt.operatorFee = { scalar: big(operator[0]), constant: big(operator[1]) };
  if (Array.isArray(da)) receipt.daFootprint = { gasUsed: big(da[0]), scalar: big(da[1]) };
}

/** Inverse of {@link encodeReceipts}. */
export function decodeReceipts(bytes: Uint8Array): StoredReceipt[] {
  const list = RLP.decode(bytes) as unknown as Array<[Uint8Array, Uint8Array, Uint8Array, StoredLog[], Uint8Array, Uint8Array | Uint8Array[], Uint8Array[]?]>;
  return list.map(([statusOrRoot, cumulative, gasUsed, logs, contract, blob, op]) => {
    const receipt: StoredReceipt = {
      statusOrRoot,
      cumulativeGasUsed: bytesToBigInt(cumulative),
      gasUsed: bytesToBigInt(gasUsed),
      logs,
    };
    if (contract.length > 0) receipt.contractAddress = contract;
    if (Array.isArray(blob)) {
      receipt.blobGasUsed = bytesToBigInt(blob[0]);
      receipt.blobGasPrice = bytesToBigInt(blob[1]);
    }
    readOpFields(receipt, op);
    return receipt;
  });
}
