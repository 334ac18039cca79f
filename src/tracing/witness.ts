import type { Block, BlockHeader } from '@ethereumjs/block';
import type { EVM, EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { type Address, type BatchDBOp, bytesToHex, type DB, type EncodingOpts, hexToBytes } from '@ethereumjs/util';
import type { EthereumChain } from '../chain/open.js';
import { keccak256 } from '../codec/keccak.js';
import { executeBlock } from '../execution/blockRun.js';
import { CallError } from '../execution/callResult.js';
import { raceFetchOnMiss } from '../state/fetchOnMiss.js';
import type { RemoteState } from '../state/remoteState.js';
import { type StateRoots, stateTrieRoot } from '../state/trieDb.js';
import { TraceTimeoutError } from './debug/harness.js';
import { runOnVm, vmOnParent } from './replay.js';

/**
 * The execution witness of a stored block (geth's `debug_executionWitness`,
 * ethereum/go-ethereum `core/stateless/witness.go`): what executing the block needs of the chain
 * besides the block itself, so that a node holding none of the state can execute it and check its
 * post-state root.
 *
 * The block runs again on its parent's state (`replay.ts`), over a database that records every
 * trie node it reads from the archive: the state trie and the storage tries, while the
 * transactions, the system writes and the withdrawals run and while the post-state root is
 * computed (deleting a key that collapses a branch reads the sibling that moves up). Nodes the
 * block itself writes are read from its write overlay and are not recorded: executing the block
 * makes them again. Codes are recorded as the state manager hands them out (geth's `GetCode` and
 * `GetCodeSize`: a code created in the block and run in it too), and the block numbers BLOCKHASH
 * asks for as the EVM's chain interface is asked.
 */

/** A block's witness, deduplicated, in geth's order (`core/stateless/encoding.go` `ToExtWitness`). */
export interface ExecutionWitness {
  /** RLP-encoded trie nodes (each stored under its keccak), sorted bytewise. */
  nodes: Uint8Array[];
  /** Contract codes, sorted bytewise. */
  codes: Uint8Array[];
  /**
   * The parent header and, when BLOCKHASH asked for older blocks, every ancestor down to the
   * oldest one asked for: oldest first, the parent last (each one's hash is the next one's
   * parentHash, so the block's own parentHash vouches for them all).
   */
  headers: BlockHeader[];
}

/** Limits of one witness run (the debug tracers' settings). */
export interface WitnessOptions {
  /** Each transaction (and the block's work outside them) may run this long: `execution timeout` after. */
  timeoutMs: number;
  /** The answer's JSON may be this large at most (`tracing.debugMaxResultBytes`). */
  maxResultBytes: number;
}

/** JSON bytes a header takes in the answer, roughly (geth's header object: 24 fields, a 256-byte bloom). */
const HEADER_JSON_BYTES = 1400;

/** The error when a witness outgrows `tracing.debugMaxResultBytes`. */
export function witnessTooLarge(max: number): CallError {
  return new CallError(`execution witness exceeds ${max} bytes (tracing.debugMaxResultBytes)`);
}

/**
 * A read-through view of the archive's trie database that keeps every value it hands out, by key
 * (trie nodes under their hash; codes under `c` + their hash).
 */
class RecordingDb implements DB<string, string | Uint8Array>, StateRoots {
  readonly read = new Map<string, Uint8Array>();
  constructor(private readonly base: DB<string, string | Uint8Array>) {}
  /** The base's fetch on miss (an archive from block N): what it fetches is read through here, and recorded. */
  get remote(): RemoteState | undefined {
    return (this.base as { remote?: RemoteState }).remote;
  }
  stateTrieRoot(stateRoot: Uint8Array): Promise<Uint8Array> {
    return stateTrieRoot(this.base, stateRoot);
  }
  async get(key: string, opts?: EncodingOpts): Promise<string | Uint8Array | undefined> {
    const value = await this.base.get(key, opts);
    if (value !== undefined) this.read.set(key, typeof value === 'string' ? hexToBytes(`0x${value}`) : value);
    return value;
  }
  async put(): Promise<void> {
    throw new Error('a witness run writes to its overlay only');
  }
  async del(): Promise<void> {}
  async batch(_ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    throw new Error('a witness run writes to its overlay only');
  }
  shallowCopy(): DB<string, string | Uint8Array> {
    return this;
  }
  async open(): Promise<void> {}
}

/** Trie node keys are 32-byte hashes in hex; code keys carry @ethereumjs' `c` prefix (one byte more). */
const NODE_KEY_LENGTH = 64;

/**
 * The witness of `block`, a stored block other than the genesis, executed on its parent's state
 * in `stateDb` (the archive's read-only trie database). Throws when the parent or its state is
 * missing, `execution timeout` past the deadline, and when the block does not reproduce its
 * header (it was verified at import, so that is a fault of this node).
 */
export async function executionWitness(
  chain: EthereumChain,
  stateDb: DB<string, string | Uint8Array>,
  block: Block,
  opts: WitnessOptions,
): Promise<ExecutionWitness> {
  const db = new RecordingDb(stateDb);
  let deadline = 0;
  const restart = (): void => {
    deadline = performance.now() + opts.timeoutMs;
  };
  restart();
  const vm = await vmOnParent(chain, db, block, 'witness');

  const codes = new Map<string, Uint8Array>();
  const sm = vm.stateManager;
  const getCode = sm.getCode.bind(sm);
  sm.getCode = async (address: Address) => {
    const code = await getCode(address);
    if (code.length > 0) codes.set(bytesToHex(keccak256(code)), code);
    return code;
  };

  const asked = new Set<bigint>();
  const evm = vm.evm as EVM;
  const chainView = evm.blockchain;
  const recorded: EVMMockBlockchainInterface = {
    getBlock: (blockId: number | bigint) => {
      asked.add(BigInt(blockId));
      return chainView.getBlock(Number(blockId));
    },
    putBlock: (b) => chainView.putBlock(b),
    shallowCopy: () => recorded,
  };
  evm.blockchain = recorded;
  const check = (): void => {
    if (performance.now() > deadline) throw new TraceTimeoutError();
  };
  // Each transaction gets the timeout afresh, as geth's tracers give each traced transaction. The
  // deadline is checked where the tracers check it, at every call frame: a throw from a trie read
  // could land in @ethereumjs' storage writes, which lose it (their promise never settles).
  vm.events.on('beforeTx', restart);
  vm.events.on('afterTx', restart);
  evm.events.on('beforeMessage', check);

  // A stored block was judged when it was imported: one made without request contracts (a
  // development node's, let in under lenient checks) runs as it ran then.
  const run = { block, generate: false, skipHeaderValidation: true, skipBlockValidation: true, setHardfork: true, emptySystemContracts: true };
  // An OP-stack block runs by the OP executor (its deposits and fees read what op-geth reads).
  if (chain.op) await raceFetchOnMiss(vm.stateManager, runOnVm(chain, vm, block));
  else await raceFetchOnMiss(vm.stateManager, executeBlock(vm, run));

  const nodes: Uint8Array[] = [];
  for (const [key, value] of db.read) {
    if (key.length === NODE_KEY_LENGTH) nodes.push(value);
    // A code read through the database is one getCode handed out, recorded there.
  }
  const headers = await ancestors(chain, block, asked);
  const witness: ExecutionWitness = { nodes: nodes.sort(lexicographic), codes: [...codes.values()].sort(lexicographic), headers };
  if (jsonBytes(witness) > opts.maxResultBytes) throw witnessTooLarge(opts.maxResultBytes);
  return witness;
}

/**
 * The parent of `block` and its ancestors down to the oldest block number in `asked`, oldest
 * first, each found by the parent hash of the one after it, as geth's `Witness.AddBlockHash`
 * pulls them in.
 */
async function ancestors(chain: EthereumChain, block: Block, asked: ReadonlySet<bigint>): Promise<BlockHeader[]> {
  let oldest = block.header.number - 1n;
  for (const n of asked) if (n < oldest) oldest = n;
  const out: BlockHeader[] = [];
  let hash = block.header.parentHash;
  for (let number = block.header.number - 1n; number >= oldest; number--) {
    const header = await chain.store.headerByHash(hash);
    if (!header) throw new Error(`witness of block ${block.header.number}: header ${bytesToHex(hash)} missing`);
    out.push(header);
    hash = header.parentHash;
  }
  return out.reverse();
}

/** Go's `bytes.Compare`: byte by byte, a prefix first. */
function lexicographic(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** The JSON bytes of a witness's answer, roughly: hex strings in quotes, and its headers. */
function jsonBytes(w: ExecutionWitness): number {
  let total = w.headers.length * HEADER_JSON_BYTES;
  for (const b of w.nodes) total += 2 * b.length + 5;
  for (const b of w.codes) total += 2 * b.length + 5;
  return total;
}
