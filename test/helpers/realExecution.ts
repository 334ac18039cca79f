import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Block, createBlockFromRLP } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, equalsBytes, hexToBytes, KECCAK256_RLP } from '@ethereumjs/util';
import type { RunBlockResult, VM } from '@ethereumjs/vm';
import { createBuiltinCommon } from '../../src/chain/chainRules.js';
import { keccak256 } from '../../src/codec/keccak.js';
import { openDatabase } from '../../src/db/database.js';
import { blockVmCommon, createBlockVM, executeBlock } from '../../src/execution/blockRun.js';
import type { Upstream } from '../../src/follow/upstream.js';
import { fetchWitness } from '../../src/follow/witnessSource.js';
import type { BlockStateProvider } from '../../src/import/partialState.js';
import { importerStateManager } from '../../src/import/partialState.js';
import { validateHeader } from '../../src/import/validate.js';
import { DEFAULT_SEARCH_NIBBLES, raceFetchOnMiss } from '../../src/state/fetchOnMiss.js';
import { RemoteStateError, type StateProof, type StateSource } from '../../src/state/stateSource.js';
import { TrieDB } from '../../src/state/trieDb.js';
import type { RealBlock } from './realBlocks.js';

/**
 * A real block executed by tracenode's own importer parts, as an archive from block N runs it: on
 * a partial trie database (a read of a node it does not hold throws, never reads as absent) that
 * starts empty, filled by the source under test —
 *
 * - `witness-reth`, `witness-geth`: the block's execution witness in reth's shape (headers as RLP)
 *   or geth's (headers as JSON objects), taken in by the follower's `fetchWitness` (each node let
 *   in only when it hangs from the parent's state root); a node the run still lacks is asked of a
 *   source that has nothing (an upstream that serves witnesses only);
 * - `proofs`: nothing up front; every node and code fetched as the run reads it, by
 *   `state/fetchOnMiss.ts`, from `eth_getProof`/`eth_getCode` answers a stand-in upstream builds
 *   from the witness's nodes and codes (so from the real state);
 *
 * then the header checked against its parent (strict rules), the block run by `executeBlock` on the
 * state manager `import/partialState.ts` builds, with BLOCKHASH answered from the witness's
 * headers. The result's roots are for the caller to compare with the header.
 */

export type RealSource = 'witness-reth' | 'witness-geth' | 'proofs';

/** What a run fetched from its source. */
export interface RealRunStats {
  proofs: number;
  codes: number;
  /** Bytes of the proofs' nodes and the codes fetched. */
  bytes: number;
  witnessNodes: number;
  witnessUnreachable: number;
}

/** The witness's nodes by hash, and its codes by hash. */
function indexWitness(rb: RealBlock): { nodes: Map<string, Uint8Array>; codes: Map<string, Uint8Array> } {
  const nodes = new Map<string, Uint8Array>();
  for (const node of rb.witness.state) nodes.set(bytesToHex(keccak256(node)), node);
  const codes = new Map<string, Uint8Array>();
  for (const code of rb.witness.codes) codes.set(bytesToHex(keccak256(code)), code);
  return { nodes, codes };
}

/** The nodes on `key`'s path from `root`, as far as `nodes` holds them, and the value there (undefined: the path is not complete). */
function provePath(nodes: Map<string, Uint8Array>, root: Uint8Array, key: Uint8Array): { proof: Uint8Array[]; value: Uint8Array | null | undefined } {
  const proof: Uint8Array[] = [];
  if (equalsBytes(root, KECCAK256_RLP)) return { proof, value: null };
  const path: number[] = [];
  for (const b of keccak256(key)) path.push(b >> 4, b & 15);
  let ref: unknown = root;
  let pos = 0;
  for (;;) {
    let items: unknown;
    if (ref instanceof Uint8Array && ref.length === 32) {
      const node = nodes.get(bytesToHex(ref));
      if (node === undefined) return { proof, value: undefined };
      proof.push(node);
      items = RLP.decode(node);
    } else if (Array.isArray(ref)) {
      items = ref;
    } else {
      return { proof, value: null };
    }
    const list = items as unknown[];
    if (list.length === 17) {
      if (pos === path.length) return { proof, value: (list[16] as Uint8Array).length ? (list[16] as Uint8Array) : null };
      const child = list[path[pos++]];
      if (child instanceof Uint8Array && child.length === 0) return { proof, value: null };
      ref = child;
      continue;
    }
    const encoded = list[0] as Uint8Array;
    const nibbles: number[] = [];
    for (const b of encoded) nibbles.push(b >> 4, b & 15);
    const flag = nibbles[0];
    const rest = nibbles.slice(flag & 1 ? 1 : 2);
    const matches = rest.every((n, i) => path[pos + i] === n);
    if (!matches) return { proof, value: null };
    pos += rest.length;
    if (flag >= 2) return { proof, value: pos === path.length ? (list[1] as Uint8Array) : null };
    ref = list[1];
  }
}

/** `eth_getProof`/`eth_getCode` answered from the witness (the real state at the parent), as a proof-serving upstream would. */
class WitnessBackedSource implements StateSource {
  proofs = 0;
  codes = 0;
  bytes = 0;
  constructor(
    private readonly rb: RealBlock,
    private readonly index: { nodes: Map<string, Uint8Array>; codes: Map<string, Uint8Array> },
  ) {}

  async proveAccount(address: Uint8Array, slots: readonly Uint8Array[], stateRoot: Uint8Array): Promise<StateProof> {
    this.proofs++;
    const account = provePath(this.index.nodes, stateRoot, address);
    const storageRoot = account.value ? ((RLP.decode(account.value) as Uint8Array[])[2] ?? KECCAK256_RLP) : KECCAK256_RLP;
    const storageProofs = slots.map((slot) => provePath(this.index.nodes, storageRoot, slot).proof);
    for (const node of [...account.proof, ...storageProofs.flat()]) this.bytes += node.length;
    return { root: stateRoot, accountProof: account.proof, storageProofs };
  }

  async code(address: Uint8Array, stateRoot: Uint8Array): Promise<Uint8Array> {
    this.codes++;
    const account = provePath(this.index.nodes, stateRoot, address).value;
    const codeHash = account ? (RLP.decode(account) as Uint8Array[])[3] : undefined;
    const code = codeHash === undefined ? undefined : this.index.codes.get(bytesToHex(codeHash));
    if (code === undefined)
      throw new RemoteStateError('unavailable', `the stand-in upstream (block ${this.rb.json.number}'s witness) has no code of ${bytesToHex(address)}`);
    return code;
  }
}

/** An upstream that serves execution witnesses only: any proof or code asked of it is refused, naming what was asked. */
class WitnessOnlySource implements StateSource {
  constructor(private readonly number: number) {}
  async proveAccount(address: Uint8Array, slots: readonly Uint8Array[]): Promise<StateProof> {
    if (process.env.TRACE_MISS) console.log(new Error().stack);
    const what = slots.length === 0 ? bytesToHex(address) : `${bytesToHex(address)}'s slot ${slots.map(bytesToHex).join(', ')}`;
    throw new RemoteStateError('unavailable', `the upstream serves execution witnesses only: no proof of ${what} for block ${this.number}`);
  }
  async code(address: Uint8Array): Promise<Uint8Array> {
    throw new RemoteStateError('unavailable', `the upstream serves execution witnesses only: no code of ${bytesToHex(address)} for block ${this.number}`);
  }
}

/** A header as geth's `debug_executionWitness` lists it: the RPC header object. */
function gethHeaderJson(rlp: Uint8Array, common: Common): Record<string, string> {
  const fields = RLP.decode(rlp) as Uint8Array[];
  const names = [
    'parentHash',
    'sha3Uncles',
    'miner',
    'stateRoot',
    'transactionsRoot',
    'receiptsRoot',
    'logsBloom',
    'difficulty',
    'number',
    'gasLimit',
    'gasUsed',
    'timestamp',
    'extraData',
    'mixHash',
    'nonce',
    'baseFeePerGas',
    'withdrawalsRoot',
    'blobGasUsed',
    'excessBlobGas',
    'parentBeaconBlockRoot',
    'requestsHash',
  ];
  const quantities = new Set(['difficulty', 'number', 'gasLimit', 'gasUsed', 'timestamp', 'baseFeePerGas', 'blobGasUsed', 'excessBlobGas']);
  const json: Record<string, string> = { hash: bytesToHex(keccak256(rlp)) };
  fields.forEach((f, i) => {
    const name = names[i];
    json[name] = quantities.has(name) ? `0x${(f.length === 0 ? 0n : BigInt(bytesToHex(f))).toString(16)}` : bytesToHex(f);
  });
  void common;
  return json;
}

/** The witness as the upstream's `debug_executionWitness` would answer it, in reth's or geth's shape. */
export function witnessAnswer(rb: RealBlock, shape: 'reth' | 'geth', common?: Common): unknown {
  const hex = (list: Uint8Array[]) => list.map(bytesToHex);
  if (shape === 'reth') return { state: hex(rb.witness.state), codes: hex(rb.witness.codes), keys: hex(rb.witness.keys), headers: hex(rb.witness.headers) };
  return { state: hex(rb.witness.state), codes: hex(rb.witness.codes), keys: null, headers: rb.witness.headers.map((h) => gethHeaderJson(h, common!)) };
}

/** BLOCKHASH from the witness's headers (chained by hash to the parent), or the source's ancestor hashes. */
function ancestorChain(rb: RealBlock): EVMMockBlockchainInterface {
  const hashes = new Map<bigint, Uint8Array>();
  for (const h of rb.headers) hashes.set(h.number, h.hash());
  for (const [n, hash] of Object.entries(rb.json.ancestorHashes ?? {})) hashes.set(BigInt(n), hexToBytes(hash as `0x${string}`));
  const chain: EVMMockBlockchainInterface = {
    async getBlock(id: number | bigint) {
      const hash = hashes.get(BigInt(id));
      if (hash === undefined) {
        console.log('BLOCKHASH MISS', id);
        throw new Error(`BLOCKHASH of block ${id}: not among the witness headers`);
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

/** `rb` executed on the state `source` gives; `alterWitness` changes the witness first (planted faults). Throws what the run throws. */
export async function executeRealBlock(
  rb: RealBlock,
  source: RealSource,
  alterWitness?: (state: Uint8Array[]) => Uint8Array[],
  observe?: (vm: VM) => void,
  /** The importer's speed-ups (`import.evmFastPaths`), on by default as there. */
  fastPaths = true,
): Promise<{ block: Block; result: RunBlockResult; stats: RealRunStats }> {
  const common = await createBuiltinCommon(rb.json.network);
  const block = createBlockFromRLP(hexToBytes(rb.json.block as `0x${string}`), { common, setHardfork: true });
  if (rb.parent !== undefined) validateHeader(block.header, rb.parent, 'strict');
  const dir = mkdtempSync(join(tmpdir(), 'tracenode-real-'));
  const level = await openDatabase(join(dir, 'db'));
  try {
    const trieDb = new TrieDB(level, true, true);
    const stats: RealRunStats = { proofs: 0, codes: 0, bytes: 0, witnessNodes: 0, witnessUnreachable: 0 };
    const state = alterWitness ? alterWitness([...rb.witness.state]) : rb.witness.state;
    const altered: RealBlock = { ...rb, witness: { ...rb.witness, state } };
    let stateSource: StateSource;
    if (source === 'proofs') {
      stateSource = new WitnessBackedSource(altered, indexWitness(altered));
    } else {
      stateSource = new WitnessOnlySource(rb.json.number);
      const parent = rb.parent ?? { number: block.header.number - 1n, stateRoot: rb.parentStateRoot, hash: () => block.header.parentHash };
      const answer = witnessAnswer(altered, source === 'witness-reth' ? 'reth' : 'geth', common);
      const fetched = await fetchWitness(undefined as unknown as Upstream, block.header.number, parent as never, trieDb, common, Promise.resolve(answer));
      stats.witnessNodes = fetched.nodes;
      stats.witnessUnreachable = fetched.unreachable;
    }
    const provider: BlockStateProvider = {
      trieDb,
      prepare: async () => undefined,
      source: stateSource,
      fetchOptions: { maxSearchNibbles: DEFAULT_SEARCH_NIBBLES },
    };
    const { sm } = await importerStateManager(common, trieDb, rb.parentStateRoot, 10_000, provider);
    const vm = await createBlockVM({ common: blockVmCommon(common), stateManager: sm, blockchain: ancestorChain(rb) }, fastPaths);
    observe?.(vm);
    const run = executeBlock(vm, { block, generate: true, skipHeaderValidation: true, setHardfork: true, clearCache: false });
    const result = await raceFetchOnMiss(sm, run);
    if (stateSource instanceof WitnessBackedSource) {
      stats.proofs = stateSource.proofs;
      stats.codes = stateSource.codes;
      stats.bytes = stateSource.bytes;
    }
    return { block, result, stats };
  } finally {
    await level.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The header fields execution did not reproduce, as `field got != want` (empty: every root verified). */
export function mismatches(block: Block, result: RunBlockResult): string[] {
  const h = block.header;
  const out: string[] = [];
  if (result.gasUsed !== h.gasUsed) out.push(`gasUsed ${result.gasUsed} != ${h.gasUsed}`);
  if (!equalsBytes(result.receiptsRoot, h.receiptTrie)) out.push(`receiptsRoot ${bytesToHex(result.receiptsRoot)} != ${bytesToHex(h.receiptTrie)}`);
  if (!equalsBytes(result.logsBloom, h.logsBloom)) out.push('logsBloom');
  if (h.requestsHash !== undefined && (result.requestsHash === undefined || !equalsBytes(result.requestsHash, h.requestsHash))) out.push('requestsHash');
  if (!equalsBytes(result.stateRoot, h.stateRoot)) out.push(`stateRoot ${bytesToHex(result.stateRoot)} != ${bytesToHex(h.stateRoot)}`);
  return out;
}
