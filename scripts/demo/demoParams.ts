// Owns the fixed parameters of the demo chain (fixtures/demo): chain id, fork blocks and times,
// block spacing, gas limit, its named accounts and the contracts that live in its genesis. Nothing
// here depends on a clock or a random source, so the chain is the same on every run.
import type { Address, Hex } from 'viem';
import { keccak256, stringToBytes } from 'viem';
import { deterministicAccount, type KeyedAccount } from '../lib/accounts.js';

export const CHAIN_ID = 271828;
export const GENESIS_TIME = 1_700_000_000; // 2023-11-14T22:13:20Z
/** Seconds between blocks before the merge. */
export const POW_SPACING = 13;
/** Seconds between blocks after the merge. */
export const POS_SPACING = 12;
export const FORK = { constantinople: 4, berlin: 6, london: 8 } as const;
/** First PoS block (mergeNetsplitBlock); blocks 1..19 are PoW. */
export const MERGE_BLOCK = 20;
export const SHANGHAI_BLOCK = 23;
export const CANCUN_BLOCK = 26;
export const LAST_BLOCK = 64;
/** Doubled to 30M by the London block (EIP-1559 elasticity). */
export const GENESIS_GAS_LIMIT = 15_000_000n;
export const GWEI = 1_000_000_000n;
export const ETHER = 10n ** 18n;

/** The timestamp of block `n`. */
export const timestampOf = (n: number): number =>
  n < MERGE_BLOCK ? GENESIS_TIME + POW_SPACING * n : GENESIS_TIME + POW_SPACING * (MERGE_BLOCK - 1) + POS_SPACING * (n - MERGE_BLOCK + 1);
export const SHANGHAI_TIME = timestampOf(SHANGHAI_BLOCK);
export const CANCUN_TIME = timestampOf(CANCUN_BLOCK);

/** keccak256("tracenode-demo:<label>"): every fixed value of the chain (keys, seals, randomness). */
export const h32 = (label: string): Hex => keccak256(stringToBytes(`tracenode-demo:${label}`));

/** A demo account: private key keccak256("tracenode-demo:<name>"). */
const account = (name: string): KeyedAccount => deterministicAccount('tracenode-demo:', name);

export const alice = account('alice');
export const bob = account('bob');
export const carol = account('carol');
export const dave = account('dave');
export const miner = account('miner');
export const uncleMiner1 = account('uncle-miner-1');
export const uncleMiner2 = account('uncle-miner-2');
export const uncleMiner3 = account('uncle-miner-3');
export const feeRecipientA = account('fee-recipient-a');
export const feeRecipientB = account('fee-recipient-b');
export const withdrawal1 = account('withdrawal-1');
export const withdrawal2 = account('withdrawal-2');
export const rare1 = account('rare-1');
export const rare2 = account('rare-2');
export const rare3 = account('rare-3');
/** The funded accounts, which send every transaction. */
export const senders = [alice, bob, carol, dave];
/** Every named account, in the README's order. */
export const keyed = [
  alice,
  bob,
  carol,
  dave,
  miner,
  uncleMiner1,
  uncleMiner2,
  uncleMiner3,
  feeRecipientA,
  feeRecipientB,
  withdrawal1,
  withdrawal2,
  rare1,
  rare2,
  rare3,
];

export const STATEBOX: Address = '0x000000000000000000000000000000000000beef';
export const BEACON_ROOTS: Address = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02';
/** EIP-4788 beacon block root contract, canonical runtime code (as on mainnet). */
export const BEACON_ROOTS_CODE: Hex =
  '0x3373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500';
