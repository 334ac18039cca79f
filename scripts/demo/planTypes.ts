// Owns the shape of the demo chain's block plan: per block, the transactions (with the README label
// and the outcome each must have), the uncles and the withdrawals.
import type { Address, Hex } from 'viem';
import { slotHex } from '../lib/abi.js';
import type { KeyedAccount } from '../lib/accounts.js';
import type { DemoAddresses, DemoContracts } from './demoContracts.js';
import { ETHER } from './demoParams.js';

/** One transaction. Its type defaults to 2 from London on, 0 before. */
export interface TxSpec {
  type?: 0 | 1 | 2 | 3;
  /** Undefined: a contract creation. */
  to?: Address;
  value?: bigint;
  data?: Hex;
  gas?: bigint;
  gasPrice?: bigint;
  maxFee?: bigint;
  tip?: bigint;
  maxFeePerBlobGas?: bigint;
  blobVersionedHashes?: Hex[];
  accessList?: { address: Address; storageKeys: Hex[] }[];
  /** A legacy transaction signed without EIP-155 (v = 27/28). */
  unprotected?: boolean;
}

/** A planned transaction: sender, spec, README label, and 'fail' when its top-level call must fail (it is still mined). */
export type PlanTx = [from: KeyedAccount, spec: TxSpec, label?: string, expect?: 'ok' | 'fail'];

/** An uncle: an empty sibling of canonical block `number`, mined by `miner`. */
export interface UncleSpec {
  number: number;
  miner: KeyedAccount;
  extra: string;
  /** Seconds added to its timestamp, to tell two uncles of one parent apart. */
  tsOffset?: number;
}

/** An EIP-4895 withdrawal (amount in gwei); the index is assigned in chain order. */
export interface WithdrawalSpec {
  validatorIndex: number;
  address: Address;
  amount: bigint;
}

export interface BlockSpec {
  txs: PlanTx[];
  uncles?: UncleSpec[];
  withdrawals?: WithdrawalSpec[];
}

/** What the plan reads: contracts, addresses (filled in as the plan deploys), nonces, the blob's hash. */
export interface PlanContext {
  C: DemoContracts;
  A: DemoAddresses;
  /** The nonce `a`'s next transaction gets. */
  peekNonce(a: KeyedAccount): bigint;
  blobVersionedHashes: Hex[];
}

/** Block number → a function that returns the block's content when the block is built. */
export type BlockPlan = Record<number, () => BlockSpec>;

/** The CREATE2 salt of Child2. */
export const SALT1 = slotHex(1);

/** An amount of DemoToken (TDT, 18 decimals). */
export const TDT = (v: number): bigint => BigInt(v) * ETHER;
