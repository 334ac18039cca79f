import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { type Block, type BlockHeader, createBlockFromRLP, createBlockHeaderFromRLP } from '@ethereumjs/block';
import { type ChainConfig, Common, Hardfork, Holesky, Hoodi, Mainnet, Sepolia } from '@ethereumjs/common';
import { bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util';
import { loadKzg } from '../../src/chain/genesis.js';
import { keccak256 } from '../../src/codec/keccak.js';

/**
 * The real public-network blocks of `fixtures/real-blocks/` (see its README): each file a block
 * as the chain encodes it, with the execution witness it was vendored with (reth's
 * `debug_executionWitness` shape), brotli-compressed JSON. Every load re-verifies what the file
 * claims, from the bytes alone, and throws on the first mismatch:
 *
 * - the block decodes with @ethereumjs/block under the network's Common (hardfork by timestamp),
 *   re-encodes to exactly the stored bytes, and its header hashes to `hash`;
 * - its transactionsRoot and withdrawalsRoot are the tries of its transactions and withdrawals;
 * - the witness headers form a parentHash chain, oldest first, whose last header is the parent
 *   (or, where the source has hashes instead of headers, `ancestorHashes` names the parent's hash);
 * - some witness node hashes to the parent's stateRoot, and no node is listed twice.
 */

export const REAL_BLOCKS = resolve(import.meta.dirname, '../../fixtures/real-blocks');
export const REAL_BLOCK_NETWORKS = ['mainnet', 'sepolia', 'holesky', 'hoodi'] as const;
export type RealBlockNetwork = (typeof REAL_BLOCK_NETWORKS)[number];

const CHAINS: Record<RealBlockNetwork, ChainConfig> = { mainnet: Mainnet, sepolia: Sepolia, holesky: Holesky, hoodi: Hoodi };

/** A fixture file as it decompresses (hex strings throughout). */
export interface RealBlockJson {
  network: RealBlockNetwork;
  chainId: number;
  number: number;
  /** keccak of the header RLP */
  hash: string;
  /** set on the blocks before the network's Prague fork */
  prePrague?: true;
  source: { repository: string; commit: string; path: string; shape: string };
  /** the block RLP: [header, transactions, uncles, withdrawals] */
  block: string;
  witness: { state: string[]; codes: string[]; keys: string[]; headers: string[] };
  /** block number -> hash, where the source gives ancestor hashes without headers */
  ancestorHashes?: Record<string, string>;
  /** the pre-state root as the source states it, where the source has no parent header */
  parentStateRoot?: string;
}

/** A fixture, decoded and verified. */
export interface RealBlock {
  file: string;
  json: RealBlockJson;
  block: Block;
  /** the parent header (the last witness header); undefined where the source has only ancestor hashes */
  parent: BlockHeader | undefined;
  /** every witness header, decoded, oldest first */
  headers: BlockHeader[];
  witness: { state: Uint8Array[]; codes: Uint8Array[]; keys: Uint8Array[]; headers: Uint8Array[] };
  /** the state root the witness proves: the parent's stateRoot */
  parentStateRoot: Uint8Array;
}

const kzg = (await loadKzg()) as never;
const commons = new Map<RealBlockNetwork, Common>();
function commonOf(network: RealBlockNetwork): Common {
  let common = commons.get(network);
  if (common === undefined) {
    common = new Common({ chain: CHAINS[network], customCrypto: { kzg, keccak256 } });
    commons.set(network, common);
  }
  return common;
}

/** The fixture files, sorted by network then number. */
export function realBlockFiles(): string[] {
  const key = (f: string) => {
    const [network, number] = f.replace('.json.br', '').split('-');
    return [REAL_BLOCK_NETWORKS.indexOf(network as RealBlockNetwork), Number(number)];
  };
  return readdirSync(REAL_BLOCKS)
    .filter((f) => f.endsWith('.json.br'))
    .sort((a, b) => {
      const [na, xa] = key(a);
      const [nb, xb] = key(b);
      return na - nb || xa - xb;
    });
}

/** Every fixture, decoded and verified (throws on the first failure). */
export async function loadRealBlocks(): Promise<RealBlock[]> {
  const out: RealBlock[] = [];
  for (const file of realBlockFiles()) out.push(await loadRealBlockFile(file));
  return out;
}

/** One fixture by network and number, decoded and verified. */
export async function loadRealBlock(network: RealBlockNetwork, number: number): Promise<RealBlock> {
  return loadRealBlockFile(`${network}-${number}.json.br`);
}

/** Reads, decodes and verifies `fixtures/real-blocks/<file>`. */
export async function loadRealBlockFile(file: string): Promise<RealBlock> {
  const json = readRealBlockJson(file);
  if (file !== `${json.network}-${json.number}.json.br`) throw new Error(`${file}: file name does not match network and number`);
  return verifyRealBlock(json, file);
}

/** A fixture file's JSON, decompressed, not verified. */
export function readRealBlockJson(file: string): RealBlockJson {
  return JSON.parse(brotliDecompressSync(readFileSync(join(REAL_BLOCKS, file))).toString('utf8')) as RealBlockJson;
}

/** Decodes a fixture's JSON and checks everything it claims (see above); throws on the first mismatch. */
export async function verifyRealBlock(json: RealBlockJson, file = `${json.network}-${json.number}.json.br`): Promise<RealBlock> {
  const fail = (what: string): never => {
    throw new Error(`${file}: ${what}`);
  };
  if (!REAL_BLOCK_NETWORKS.includes(json.network)) fail(`unknown network ${json.network}`);
  const common = commonOf(json.network);
  if (BigInt(json.chainId) !== common.chainId()) fail(`chainId ${json.chainId} is not ${json.network}'s`);

  // The block: decodes, round-trips byte for byte, hashes to `hash`, and its tries match its header.
  const bytes = hexToBytes(json.block as `0x${string}`);
  const block = createBlockFromRLP(bytes, { common, setHardfork: true });
  const header = block.header;
  if (!equalsBytes(block.serialize(), bytes)) fail('block does not re-encode to its bytes');
  if (header.number !== BigInt(json.number)) fail(`header number ${header.number}`);
  if (bytesToHex(keccak256(header.serialize())) !== json.hash) fail(`header hashes to ${bytesToHex(keccak256(header.serialize()))}, not ${json.hash}`);
  if (bytesToHex(block.hash()) !== json.hash) fail('block.hash() differs from the header RLP hash');
  if (!(await block.transactionsTrieIsValid())) fail('transactionsRoot is not the root of the transactions');
  if (header.withdrawalsRoot === undefined || block.withdrawals === undefined) fail('no withdrawals');
  if (!(await block.withdrawalsTrieIsValid())) fail('withdrawalsRoot is not the root of the withdrawals');
  if (block.uncleHeaders.length !== 0) fail('uncles');
  const prague = block.common.gteHardfork(Hardfork.Prague);
  if (prague === (json.prePrague === true)) fail(`prePrague flag ${json.prePrague} but the block is ${block.common.hardfork()}`);

  // The ancestors: a parentHash chain, oldest first, ending at the parent.
  const witness = {
    state: json.witness.state.map((h) => hexToBytes(h as `0x${string}`)),
    codes: json.witness.codes.map((h) => hexToBytes(h as `0x${string}`)),
    keys: json.witness.keys.map((h) => hexToBytes(h as `0x${string}`)),
    headers: json.witness.headers.map((h) => hexToBytes(h as `0x${string}`)),
  };
  const headers = witness.headers.map((h) => createBlockHeaderFromRLP(h, { common, setHardfork: true }));
  headers.forEach((h, i) => {
    if (!equalsBytes(h.serialize(), witness.headers[i])) fail(`witness header ${i} does not re-encode to its bytes`);
    if (i > 0 && (!equalsBytes(h.parentHash, headers[i - 1].hash()) || h.number !== headers[i - 1].number + 1n)) {
      fail(`witness header ${h.number} does not follow ${headers[i - 1].number}`);
    }
  });
  const parent = headers.at(-1);
  let parentStateRoot: Uint8Array;
  if (parent !== undefined) {
    if (!equalsBytes(parent.hash(), header.parentHash) || parent.number !== header.number - 1n) fail('the last witness header is not the parent');
    if (json.ancestorHashes !== undefined || json.parentStateRoot !== undefined) fail('ancestorHashes / parentStateRoot alongside headers');
    parentStateRoot = parent.stateRoot;
  } else {
    const hashes = json.ancestorHashes ?? fail('neither witness headers nor ancestorHashes');
    const numbers = Object.keys(hashes)
      .map(Number)
      .sort((a, b) => b - a);
    if (numbers.length !== Math.min(256, json.number)) fail(`${numbers.length} ancestorHashes, not the 256 that BLOCKHASH reaches`);
    numbers.forEach((n, i) => {
      if (n !== json.number - 1 - i) fail(`ancestorHashes are not the ${numbers.length} blocks before ${json.number}`);
    });
    if (hashes[String(json.number - 1)] !== bytesToHex(header.parentHash)) fail('ancestorHashes names another parent hash');
    parentStateRoot = hexToBytes((json.parentStateRoot ?? fail('no parentStateRoot without a parent header')) as `0x${string}`);
  }

  // The witness proves the parent's state: its root node is there; nodes are listed once.
  const seen = new Set<string>();
  for (const node of witness.state) {
    const hash = bytesToHex(keccak256(node));
    if (seen.has(hash)) fail(`witness node ${hash} listed twice`);
    seen.add(hash);
  }
  if (!seen.has(bytesToHex(parentStateRoot))) fail(`no witness node hashes to the parent state root ${bytesToHex(parentStateRoot)}`);
  return { file, json, block, parent, headers, witness, parentStateRoot };
}
