import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { type Block, type BlockHeader, createBlock, createBlockHeader } from '@ethereumjs/block';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes, KECCAK256_RLP, KECCAK256_RLP_ARRAY } from '@ethereumjs/util';
import { baseFeeParams, holoceneExtraData, nextBaseFee } from '../../src/chain/op/baseFee.js';
import { type OpRollup, opCommon, rollupFromConfig, upgradeAt } from '../../src/chain/op/rollup.js';
import { bigIntToQuantity } from '../../src/codec/hex.js';
import { keccak256 } from '../../src/codec/keccak.js';
import { openDatabase } from '../../src/db/database.js';
import { createBlockVM } from '../../src/execution/blockRun.js';
import { executeOpBlock, type OpBlockResult, type OpReceipt } from '../../src/execution/op/opBlockRun.js';
import { opPrecompiles } from '../../src/execution/op/precompiles.js';
import type { Upstream } from '../../src/follow/upstream.js';
import { fetchWitness } from '../../src/follow/witnessSource.js';
import { importerStateManager } from '../../src/import/partialState.js';
import { DEFAULT_SEARCH_NIBBLES, raceFetchOnMiss } from '../../src/state/fetchOnMiss.js';
import { RemoteStateError, type StateProof, type StateSource } from '../../src/state/stateSource.js';
import { TrieDB } from '../../src/state/trieDb.js';

/**
 * The real OP-stack blocks of `fixtures/op-stack/` (see its README): kona's executor fixtures, each
 * the rollup config, the parent header, the payload attributes the block was built from, the
 * block's hash, and every keccak preimage (trie nodes, codes, ancestor headers) the block's run
 * read of its pre-state. A block is checked the way kona's executor test checks it: its header is
 * built from the parent and the payload with the roots execution gives, and must hash to the
 * block's real hash — which holds only if state root, receipts root, logs bloom, gas used,
 * transactions root and base fee are all exact.
 */

export const OP_BLOCKS = resolve(import.meta.dirname, '../../fixtures/op-stack');

interface KonaFixture {
  rollup_config: Record<string, unknown> & { l2_chain_id: number };
  parent_header: Record<string, string>;
  executing_payload: {
    timestamp: string;
    prevRandao: string;
    suggestedFeeRecipient: string;
    parentBeaconBlockRoot: string;
    transactions: string[];
    gasLimit: string;
    eip1559Params?: string;
  };
  expected_block_hash: string;
}

export interface OpBlock {
  file: string;
  network: string;
  number: bigint;
  fixture: KonaFixture;
  rollup: OpRollup;
  parent: BlockHeader;
  /** Preimages by their keccak-256 (0x-hex). */
  preimages: Map<string, Uint8Array>;
}

/** A block's file: `<network>-<number>.json.br`. */
const FILE = /^(op-sepolia|op-mainnet|unichain)-(\d+)\.json\.br$/;

const hex = (s: string) => hexToBytes(s as `0x${string}`);

/** Every OP block fixture, decoded; the parent header's hash checked against its preimage where the store holds it. */
export function loadOpBlocks(): OpBlock[] {
  const files = readdirSync(OP_BLOCKS).filter((f) => FILE.test(f));
  return files.map((file) => {
    const json = JSON.parse(brotliDecompressSync(readFileSync(join(OP_BLOCKS, file))).toString('utf8')) as { fixture: KonaFixture; preimages: string[] };
    const [, network, n] = FILE.exec(file)!;
    const preimages = new Map<string, Uint8Array>();
    for (const p of json.preimages) {
      const bytes = hex(p);
      preimages.set(bytesToHex(keccak256(bytes)), bytes);
    }
    const rollup = rollupFromConfig(json.fixture.rollup_config);
    const parent = headerFromJson(json.fixture.parent_header, rollup);
    return { file, network, number: BigInt(n), fixture: json.fixture, rollup, parent, preimages };
  });
}

/**
 * A header given as the RPC object (kona's `parent_header`, op-enclave's `blockHeader`), at its
 * upgrade's fork. A header object without `blobGasUsed` and `excessBlobGas` (op-enclave's) gets 0
 * for them: an OP block's excess blob gas is 0, and its blob gas used (Jovian's DA footprint) is
 * then the caller's to check otherwise.
 */
export function headerFromJson(h: Record<string, string>, rollup: OpRollup): BlockHeader {
  const time = BigInt(h.timestamp);
  return createBlockHeader(
    {
      parentHash: hex(h.parentHash),
      uncleHash: hex(h.sha3Uncles),
      coinbase: hex(h.miner),
      stateRoot: hex(h.stateRoot),
      transactionsTrie: hex(h.transactionsRoot),
      receiptTrie: hex(h.receiptsRoot),
      logsBloom: hex(h.logsBloom),
      difficulty: BigInt(h.difficulty),
      number: BigInt(h.number),
      gasLimit: BigInt(h.gasLimit),
      gasUsed: BigInt(h.gasUsed),
      timestamp: time,
      extraData: hex(h.extraData),
      mixHash: hex(h.mixHash),
      nonce: hex(h.nonce),
      baseFeePerGas: BigInt(h.baseFeePerGas),
      withdrawalsRoot: hex(h.withdrawalsRoot),
      blobGasUsed: BigInt(h.blobGasUsed ?? 0),
      excessBlobGas: BigInt(h.excessBlobGas ?? 0),
      parentBeaconBlockRoot: hex(h.parentBeaconBlockRoot),
    },
    { common: opCommon(rollup, upgradeAt(rollup, time)) },
  );
}

/** The header kona builds of the payload on `parent` (roots from `result`, zeros before the run). */
export function builtHeader(b: OpBlock, result?: OpBlockResult): BlockHeader {
  const p = b.fixture.executing_payload;
  const time = BigInt(p.timestamp);
  const parent = b.parent;
  const params = baseFeeParams(b.rollup, { timestamp: parent.timestamp, extraData: parent.extraData }, time);
  const baseFee = nextBaseFee({ gasLimit: parent.gasLimit, gasUsed: parent.gasUsed, baseFee: parent.baseFeePerGas! }, params);
  return createBlockHeader(
    {
      parentHash: parent.hash(),
      uncleHash: KECCAK256_RLP_ARRAY,
      coinbase: hex(p.suggestedFeeRecipient),
      stateRoot: result?.stateRoot,
      transactionsTrie: result?.transactionsRoot,
      receiptTrie: result?.receiptsRoot,
      logsBloom: result?.logsBloom,
      difficulty: 0n,
      number: parent.number + 1n,
      gasLimit: BigInt(p.gasLimit),
      gasUsed: result?.gasUsed ?? 0n,
      timestamp: time,
      extraData: holoceneExtraData(b.rollup, hex(p.eip1559Params ?? '0x0000000000000000')),
      mixHash: hex(p.prevRandao),
      nonce: new Uint8Array(8),
      baseFeePerGas: baseFee,
      withdrawalsRoot: KECCAK256_RLP,
      blobGasUsed: 0n,
      excessBlobGas: 0n,
      parentBeaconBlockRoot: hex(p.parentBeaconBlockRoot),
    },
    { common: opCommon(b.rollup, upgradeAt(b.rollup, time)) },
  );
}

/** BLOCKHASH from the parent and the header preimages chained from it. */
function ancestors(b: OpBlock): EVMMockBlockchainInterface {
  const chain: EVMMockBlockchainInterface = {
    async getBlock(id: number | bigint) {
      let number = b.parent.number;
      let hash = b.parent.hash();
      while (number > BigInt(id)) {
        const header = b.preimages.get(bytesToHex(hash));
        if (header === undefined) throw new Error(`BLOCKHASH of block ${id}: header ${bytesToHex(hash)} not among the preimages`);
        hash = (RLP.decode(header) as Uint8Array[])[0];
        number--;
      }
      return { hash: () => hash };
    },
    async putBlock() {
      throw new Error('read-only');
    },
    shallowCopy: () => chain,
  };
  return chain;
}

/** BLOCKHASH of the parent only, for a block whose data (`holder`) has no older header. */
export function parentOnly(parent: BlockHeader, holder: string): EVMMockBlockchainInterface {
  const chain: EVMMockBlockchainInterface = {
    async getBlock(id: number | bigint) {
      if (BigInt(id) !== parent.number) throw new Error(`BLOCKHASH of block ${id}: ${holder} holds only the parent's header`);
      return { hash: () => parent.hash() };
    },
    async putBlock() {
      throw new Error('read-only');
    },
    shallowCopy: () => chain,
  };
  return chain;
}

/** An upstream that holds nothing: a node the preimages lack stops the run, naming it. */
class NothingMore implements StateSource {
  async proveAccount(address: Uint8Array): Promise<StateProof> {
    throw new RemoteStateError('unavailable', `not among the preimages: account ${bytesToHex(address)}`);
  }
  async code(address: Uint8Array): Promise<Uint8Array> {
    throw new RemoteStateError('unavailable', `not among the preimages: code of ${bytesToHex(address)}`);
  }
}

/** The block run by tracenode's OP executor on the state its preimages give (the importer's partial trie database). */
export async function executeOpFixture(b: OpBlock): Promise<{ result: OpBlockResult; header: BlockHeader }> {
  const all = [...b.preimages.values()].map(bytesToHex);
  const header = builtHeader(b);
  const block = createBlock({ header }, { common: header.common });
  const transactions = b.fixture.executing_payload.transactions.map(hex);
  const result = await runOnPreState({ rollup: b.rollup, parent: b.parent, block, transactions, state: all, codes: all, blockchain: ancestors(b) });
  return { result, header: builtHeader(b, result) };
}

/** What {@link runOnPreState} runs: a block on its parent, with the pre-state as trie nodes and codes (0x-hex). */
export interface PreStateRun {
  rollup: OpRollup;
  parent: BlockHeader;
  block: Block;
  transactions: Uint8Array[];
  state: string[];
  codes: string[];
  blockchain: EVMMockBlockchainInterface;
  /** The importer's speed-ups (`import.evmFastPaths`), on by default as there. */
  fastPaths?: boolean;
}

/**
 * `block` run by tracenode's OP executor on the importer's partial trie database, filled with
 * the pre-state through the follower's witness intake as an archive from block N fills it; a
 * node or code the pre-state lacks stops the run, naming it.
 */
export async function runOnPreState(run: PreStateRun): Promise<OpBlockResult> {
  const time = run.block.header.timestamp;
  const common = run.block.common;
  const dir = mkdtempSync(join(tmpdir(), 'tracenode-op-'));
  const level = await openDatabase(join(dir, 'db'));
  try {
    const trieDb = new TrieDB(level, true, true);
    await fetchWitness(
      undefined as unknown as Upstream,
      run.parent.number + 1n,
      run.parent,
      trieDb,
      common,
      Promise.resolve({ state: run.state, codes: run.codes, headers: [] }),
    );
    const provider = { trieDb, prepare: async () => undefined, source: new NothingMore(), fetchOptions: { maxSearchNibbles: DEFAULT_SEARCH_NIBBLES } };
    const { sm } = await importerStateManager(common, trieDb, run.parent.stateRoot, 10_000, provider);
    const vm = await createBlockVM(
      {
        common,
        stateManager: sm,
        blockchain: run.blockchain,
        evmOpts: { customPrecompiles: opPrecompiles(run.rollup, time, common) },
      },
      run.fastPaths ?? true,
    );
    return await raceFetchOnMiss(sm, executeOpBlock(vm, { block: run.block, transactions: run.transactions, rollup: run.rollup }));
  } finally {
    await level.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A run's state root, receipts root, logs bloom and gas used, as {@link headerRoots} gives a header's. */
export function runRoots(r: OpBlockResult): [string, string, string, bigint] {
  return [bytesToHex(r.stateRoot), bytesToHex(r.receiptsRoot), bytesToHex(r.logsBloom), r.gasUsed];
}

/** A header's state root, receipts root, logs bloom and gas used. */
export function headerRoots(h: BlockHeader): [string, string, string, bigint] {
  return [bytesToHex(h.stateRoot), bytesToHex(h.receiptTrie), bytesToHex(h.logsBloom), h.gasUsed];
}

/** Receipts as a node's `eth_getBlockReceipts` gives their consensus fields, a deposit's nonce and version with them. */
export function receiptsAsNodeJson(receipts: readonly OpReceipt[]): Array<Record<string, unknown>> {
  return receipts.map((r) => ({
    status: bigIntToQuantity(r.status),
    cumulativeGasUsed: bigIntToQuantity(r.cumulativeGasUsed),
    logsBloom: bytesToHex(r.bloom),
    logs: r.logs.map(([address, topics, data]) => ({ address: bytesToHex(address), topics: topics.map(bytesToHex), data: bytesToHex(data) })),
    ...(r.depositNonce !== undefined ? { depositNonce: bigIntToQuantity(r.depositNonce) } : {}),
    ...(r.depositReceiptVersion !== undefined ? { depositReceiptVersion: bigIntToQuantity(r.depositReceiptVersion) } : {}),
  }));
}

/** A transaction's calldata gas by hand (the L1 fee's before Fjord): 4 a zero byte, 16 any other. */
export function calldataGas(raw: Uint8Array): bigint {
  const zeros = BigInt(raw.filter((byte) => byte === 0).length);
  return zeros * 4n + (BigInt(raw.length) - zeros) * 16n;
}
