import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, concatBytes } from '@ethereumjs/util';
import type { CallRequest } from './callArgs.js';

/**
 * The unsigned transaction geth builds of a call's arguments (ethereum/go-ethereum
 * `internal/ethapi/transaction_args.go` ToTransaction): the fields of each transaction type
 * (`core/types/tx_legacy.go`, `tx_access_list.go`, `tx_dynamic_fee.go`, `tx_blob.go`,
 * `tx_setcode.go`) with a zero signature, and their encoding. Which type a call becomes is the
 * caller's choice (eth_createAccessList and eth_simulateV1 choose differently, as geth does).
 */

/** A transaction type: the first byte of a typed envelope (EIP-2718), 0 for a legacy transaction. */
export type TxType = 0 | 1 | 2 | 3 | 4;

/** A call's arguments after defaults, as the transaction's fields need them. */
export type TxArgs = CallRequest & { nonce: bigint; gas: bigint; chainId: bigint };

/** RLP fields: byte strings and lists of them. */
export type TxFields = Array<Uint8Array | TxFields>;

const ZERO_SIGNATURE: TxFields = [new Uint8Array(), new Uint8Array(), new Uint8Array()];

/**
 * The RLP fields of the unsigned transaction of `type` made of `args`, signature (zero) included.
 * Absent fees count as 0; a legacy or access-list transaction carries `gasPrice`.
 */
export function unsignedTxFields(type: TxType, args: TxArgs): TxFields {
  const n = bigIntToUnpaddedBytes;
  const to = args.to ?? new Uint8Array();
  const value = n(args.value ?? 0n);
  const data = args.data ?? new Uint8Array();
  if (type === 0) return [n(args.nonce), n(args.gasPrice ?? 0n), n(args.gas), to, value, data, ...ZERO_SIGNATURE];
  const accessList = (args.accessList ?? []).map((e) => [e.address, e.storageKeys]);
  if (type === 1) return [n(args.chainId), n(args.nonce), n(args.gasPrice ?? 0n), n(args.gas), to, value, data, accessList, ...ZERO_SIGNATURE];
  const fees = [n(args.chainId), n(args.nonce), n(args.maxPriorityFeePerGas ?? 0n), n(args.maxFeePerGas ?? 0n), n(args.gas), to, value, data, accessList];
  if (type === 2) return [...fees, ...ZERO_SIGNATURE];
  if (type === 3) return [...fees, n(args.maxFeePerBlobGas ?? 0n), args.blobVersionedHashes ?? [], ...ZERO_SIGNATURE];
  const auths = (args.authorizationList ?? []).map((a) => [n(a.chainId), a.address, n(a.nonce), n(a.yParity), n(a.r), n(a.s)]);
  return [...fees, auths, ...ZERO_SIGNATURE];
}

/** A transaction's encoding (what its hash is taken of): RLP of a legacy one, `type ‖ RLP(fields)` of a typed one. */
export function encodeTx(type: TxType, fields: TxFields): Uint8Array {
  const rlp = RLP.encode(fields);
  return type === 0 ? rlp : concatBytes(Uint8Array.of(type), rlp);
}
