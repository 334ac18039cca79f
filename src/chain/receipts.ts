import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToBigInt } from '@ethereumjs/util';

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
    ]),
  );
}

/** Inverse of {@link encodeReceipts}. */
export function decodeReceipts(bytes: Uint8Array): StoredReceipt[] {
  const list = RLP.decode(bytes) as unknown as Array<[Uint8Array, Uint8Array, Uint8Array, StoredLog[], Uint8Array, Uint8Array | Uint8Array[]]>;
  return list.map(([statusOrRoot, cumulative, gasUsed, logs, contract, blob]) => {
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
    return receipt;
  });
}
