/**
 * The arguments of a call as the execution layer takes them, decoded (bigint and bytes): geth's
 * `TransactionArgs` call object (ethereum/go-ethereum `internal/ethapi/transaction_args.go`), the
 * state overrides and the block overrides (`internal/ethapi/override/override.go`). The wire
 * decoding is `methods/eth/_shared/callArgs.ts`.
 */

/** One EIP-2930 access-list entry. */
export interface AccessListEntry {
  address: Uint8Array;
  storageKeys: Uint8Array[];
}

/** One EIP-7702 authorization tuple (signed by the authority). */
export interface Authorization {
  chainId: bigint;
  address: Uint8Array;
  nonce: bigint;
  yParity: bigint;
  r: bigint;
  s: bigint;
}

/** The call object, decoded. Absent fields are undefined; defaults are the engine's business. */
export interface CallRequest {
  from?: Uint8Array;
  /** undefined = contract creation. */
  to?: Uint8Array;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  maxFeePerBlobGas?: bigint;
  value?: bigint;
  nonce?: bigint;
  /** `input`, or the legacy `data` alias. */
  data?: Uint8Array;
  accessList?: AccessListEntry[];
  chainId?: bigint;
  blobVersionedHashes?: Uint8Array[];
  authorizationList?: Authorization[];
  /** Accepted for compatibility; the message's shape follows from its fields, as in geth. */
  type?: bigint;
}

/** Overrides of one account for a single call. */
export interface AccountOverride {
  address: Uint8Array;
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  /** Replaces all storage of the account: [slot, value] pairs of 32 bytes each. */
  state?: Array<[Uint8Array, Uint8Array]>;
  /** Patches single slots. */
  stateDiff?: Array<[Uint8Array, Uint8Array]>;
  movePrecompileToAddress?: Uint8Array;
}

/** Block-context overrides for a single call. */
export interface BlockOverrides {
  number?: bigint;
  difficulty?: bigint;
  time?: bigint;
  gasLimit?: bigint;
  feeRecipient?: Uint8Array;
  prevRandao?: Uint8Array;
  baseFeePerGas?: bigint;
  blobBaseFee?: bigint;
  /** Fields geth decodes but refuses in eth_call (`beaconRoot`, `withdrawals`), in order met. */
  unsupported: string[];
  /** eth_simulateV1 only: the block's parent beacon root and withdrawals. */
  beaconRoot?: Uint8Array;
  withdrawals?: Withdrawal[];
}

/** A withdrawal of a simulated block (amount in gwei). */
export interface Withdrawal {
  index: bigint;
  validatorIndex: bigint;
  address: Uint8Array;
  amount: bigint;
}
