// Owns what a scenario of the anvil generator is: the contracts it compiles, its default height,
// the accounts it is given, and what it reports for expected.json and the README. A scenario avoids
// what anvil 1.7.1 hashes differently from the specification (docs/peers.md): it never writes zero
// to storage, never leaves a touched account empty, and never lets a CREATE fail.
import type { Address, Hash, Hex } from 'viem';
import type { KeyedAccount } from '../lib/accounts.js';
import type { Artifact } from '../lib/solc.js';
import type { AnvilClient } from './anvilClient.js';
import type { ChainDriver } from './chainDriver.js';
import type { ExportedBlock } from './exportBlocks.js';

/** The funded accounts: alice..erin in every scenario, `users` in the bench. */
export interface ScenarioAccounts {
  alice: KeyedAccount;
  bob: KeyedAccount;
  carol: KeyedAccount;
  dave: KeyedAccount;
  erin: KeyedAccount;
  users: KeyedAccount[];
}

export interface ScenarioContext {
  d: ChainDriver;
  /** Compiled contracts by `File.sol:Name`. */
  art: Record<string, Artifact>;
  acct: ScenarioAccounts;
  /** The chain height to reach. */
  blocks: number;
  log: (msg: string) => void;
}

/** The bench's figures for bench/: its token holder, calls to time, its heaviest block. */
export interface BenchFigures {
  token: Address;
  holder: Address;
  balanceOfCalldata: Hex;
  heavyCall: { to: Address; data: Hex; note: string; gas?: number };
  revertingCall: { from: Address; to: Address; data: Hex; note: string };
  heavyBlockPlanned: number;
  heaviestBlock?: number;
  heaviestBlockGasUsed?: number;
  heaviestBlockTx?: Hash;
  holderBalance?: Hex;
}

/** What a scenario reports; expected.json holds it (in this key order) and the README shows it. */
export interface ScenarioInfo {
  contracts: Record<string, Address>;
  accounts: Record<string, string | number>;
  slots?: Record<string, Record<string, Hex>>;
  txs?: Record<string, { hash: Hash; block: number }>;
  notes?: string[];
  rareAddress?: Address;
  rareBlocks?: number[];
  bench?: BenchFigures;
}

/** After the export: the scenario's own checks and figures, from anvil and the exported blocks. */
export interface ScenarioFinish {
  client: AnvilClient;
  d: ChainDriver;
  blocks: ExportedBlock[];
  info: ScenarioInfo;
}

export interface Scenario {
  /** The .sol files of scripts/anvil it deploys. */
  files: string[];
  defaultBlocks: number;
  /** How many bench users (user0, user1, …) are funded besides alice..erin. */
  users: number;
  /** Fetch every transaction's bytes back from anvil at export (skipped where there are many). */
  checkRaw: boolean;
  /** Extra anvil options. */
  anvilArgs: string[];
  run(ctx: ScenarioContext): Promise<ScenarioInfo>;
  finish?(f: ScenarioFinish): Promise<void>;
}
