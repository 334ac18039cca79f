import type { BlockContext } from './blockContext.js';
import type { AccessListEntry, Authorization, CallRequest } from './callArgs.js';
import { CallError } from './callResult.js';
import type { MessageParams } from './messageParams.js';

/**
 * The message of a call, as geth builds it from the request (ethereum/go-ethereum
 * `internal/ethapi/transaction_args.go` CallDefaults and ToMessage: defaults, the gas cap, the fee
 * fields against the base fee), and what it is charged before execution (`core/state_transition.go`
 * IntrinsicGas and FloorDataGas), priced with the @ethereumjs/common parameters of the fork it
 * runs on.
 */

/** A message after geth's CallDefaults and ToMessage. */
export interface Message {
  from: Uint8Array;
  to: Uint8Array | undefined;
  gasLimit: bigint;
  gasPrice: bigint;
  feeCap: bigint;
  tipCap: bigint;
  value: bigint;
  data: Uint8Array;
  accessList: AccessListEntry[];
  blobHashes: Uint8Array[] | undefined;
  blobFeeCap: bigint | undefined;
  authorizations: Authorization[] | undefined;
}

/**
 * geth's CallDefaults and ToMessage for a call request in a block context: checks the fee fields
 * and chain id, caps the gas at `gasCap` (its default when absent), derives the gas price from the
 * fee fields and the (possibly overridden) base fee. A call that pays nothing runs with base fee
 * (and blob base fee) 0, geth's NoBaseFee, which this sets on `ctx`.
 */
export function callMessage(request: CallRequest, ctx: BlockContext, gasCap: bigint): Message {
  // CallDefaults (transaction_args.go)
  if (request.gasPrice !== undefined && (request.maxFeePerGas !== undefined || request.maxPriorityFeePerGas !== undefined)) {
    throw new CallError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
  }
  const chainId = ctx.fork.common.chainId();
  if (request.chainId !== undefined && request.chainId !== chainId) {
    throw new CallError(`chainId does not match node's (have=${request.chainId}, want=${chainId})`);
  }
  let gasLimit = request.gas ?? gasCap;
  if (gasLimit > gasCap) gasLimit = gasCap;

  // ToMessage: the fee fields against the (possibly overridden) base fee
  let gasPrice: bigint;
  let feeCap: bigint;
  let tipCap: bigint;
  if (ctx.baseFee === undefined) {
    gasPrice = request.gasPrice ?? 0n;
    feeCap = tipCap = gasPrice;
  } else if (request.gasPrice !== undefined) {
    gasPrice = feeCap = tipCap = request.gasPrice;
  } else {
    feeCap = request.maxFeePerGas ?? 0n;
    tipCap = request.maxPriorityFeePerGas ?? 0n;
    gasPrice = 0n;
    if (feeCap > 0n || tipCap > 0n) {
      gasPrice = tipCap + ctx.baseFee;
      if (gasPrice > feeCap) gasPrice = feeCap;
    }
  }
  const blobFeeCap = request.maxFeePerBlobGas ?? (request.blobVersionedHashes !== undefined ? 0n : undefined);
  // geth NoBaseFee: a call that pays nothing runs with base fee (and blob base fee) 0.
  if (gasPrice === 0n && ctx.baseFee !== undefined) ctx.baseFee = 0n;
  if (blobFeeCap === 0n && ctx.blobBaseFee !== undefined) ctx.blobBaseFee = 0n;

  return {
    from: request.from ?? new Uint8Array(20),
    to: request.to,
    gasLimit,
    gasPrice,
    feeCap,
    tipCap,
    value: request.value ?? 0n,
    data: request.data ?? new Uint8Array(),
    accessList: request.accessList ?? [],
    blobHashes: request.blobVersionedHashes,
    blobFeeCap,
    authorizations: request.authorizationList,
  };
}

/** Intrinsic gas of a message (geth `core.IntrinsicGas`, pre-Amsterdam). */
export function intrinsicGas(p: MessageParams, msg: Message, isCreate: boolean): bigint {
  let gas = isCreate ? p.txGas + p.txCreationGas : p.txGas;
  let nonZero = 0;
  for (const b of msg.data) if (b !== 0) nonZero++;
  gas += BigInt(nonZero) * p.txDataNonZeroGas + BigInt(msg.data.length - nonZero) * p.txDataZeroGas;
  if (isCreate && p.initCodeWordGas !== 0n) gas += ((BigInt(msg.data.length) + 31n) / 32n) * p.initCodeWordGas;
  for (const entry of msg.accessList) gas += p.accessListAddressGas + BigInt(entry.storageKeys.length) * p.accessListStorageKeyGas;
  if (msg.authorizations !== undefined) gas += BigInt(msg.authorizations.length) * p.perEmptyAccountCost;
  return gas;
}

/**
 * EIP-7623 calldata floor (geth `core.FloorDataGas`): TxGas plus the floor price per token, a
 * non-zero byte counting 4 tokens. 0 before Prague.
 */
export function floorDataGas(p: MessageParams, data: Uint8Array): bigint {
  if (p.totalCostFloorPerToken === undefined) return 0n;
  let tokens = 0;
  for (const b of data) tokens += b === 0 ? 1 : 4;
  return p.txGas + BigInt(tokens) * p.totalCostFloorPerToken;
}
