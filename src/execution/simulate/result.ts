import type { Withdrawal } from '../callArgs.js';
import type { CallResult } from '../callResult.js';
import type { TxArgs, TxType } from '../typedTransaction.js';
import type { SimLog } from './transferLogs.js';

export type { SimLog } from './transferLogs.js';

/**
 * What eth_simulateV1 answers, in bigint and bytes (`methods/eth/_shared/formatSimulatedBlock.ts`
 * renders it as geth's `RPCMarshalBlock` with the calls' results): each simulated block's header
 * fields, computed as a client computes them, its transactions and its calls' outcomes.
 */

/** One call's outcome, as geth's `simCallResult` holds it. */
export interface SimulatedCall {
  /** The run: return data (the revert data when reverted), gas used and peak gas, failure. */
  result: CallResult;
  /** The call's logs as geth's tracer reports them (dropped with their failed frame; transfers with `traceTransfers`). */
  logs: SimLog[];
  /** The call's gas was lowered to what was left of the request's gas budget. */
  gasCapped: boolean;
}

/** The unsigned transaction geth builds of a call (`ToTransaction(DynamicFeeTxType)`), as its block holds it. */
export interface SimulatedTransaction {
  type: TxType;
  hash: Uint8Array;
  from: Uint8Array;
  /** The call after defaults: the transaction's fields. */
  args: TxArgs & { value: bigint };
}

/** One simulated block: its header fields, transactions and calls. */
export interface SimulatedBlock {
  number: bigint;
  hash: Uint8Array;
  parentHash: Uint8Array;
  mixHash: Uint8Array;
  logsBloom: Uint8Array;
  stateRoot: Uint8Array;
  miner: Uint8Array;
  difficulty: bigint;
  /** Bytes of the block's RLP (header, transactions, no uncles, withdrawals from Shanghai). */
  size: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  transactionsRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  /** London on. */
  baseFeePerGas?: bigint;
  /** Shanghai on: the root and the withdrawals (gwei). */
  withdrawals?: { root: Uint8Array; list: Withdrawal[] };
  /** Cancun on. */
  blobs?: { blobGasUsed: bigint; excessBlobGas: bigint; parentBeaconBlockRoot: Uint8Array };
  /** Prague on: EIP-7685's hash of the block's requests. */
  requestsHash?: Uint8Array;
  transactions: SimulatedTransaction[];
  calls: SimulatedCall[];
}
