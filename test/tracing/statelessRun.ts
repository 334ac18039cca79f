import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { type BatchDBOp, bytesToUnprefixedHex, concatBytes, type DB, equalsBytes, KECCAK256_RLP, utf8ToBytes, ValueEncoding } from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak.js';
import { blockVmCommon, createBlockVM, executeBlock } from '../../src/execution/blockRun.js';

/**
 * Executing a block statelessly: from its witness alone (geth's `debug_executionWitness`
 * answer), on a fresh in-memory trie database that holds only the witness's nodes, each under
 * its keccak, and its codes, each under @ethereumjs' code key; BLOCKHASH answered only from the
 * witness's headers, whose hashes are chained to the block's parentHash. Nothing of the node
 * that made the witness is read.
 */

/** A witness in domain form (the wire answer decoded). */
export interface Witness {
  nodes: Uint8Array[];
  codes: Uint8Array[];
  /** Oldest first, the parent last. */
  headers: BlockHeader[];
}

/** What a stateless run computed. */
export interface StatelessResult {
  stateRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  gasUsed: bigint;
}

/** The empty trie's root: no node stands for it, and the trie reads it (absent) wherever it is a root. */
const EMPTY_ROOT_KEY = bytesToUnprefixedHex(KECCAK256_RLP);

/**
 * An in-memory trie database holding only given entries. A read of anything else is a hole: the
 * run fails at once with `witness lacks …`, and the database answers nothing more (its reads never
 * settle), because @ethereumjs' storage writes lose an error thrown inside them and would hang.
 */
class WitnessDb implements DB<string, string | Uint8Array> {
  /** Rejects at the first hole. */
  readonly hole: Promise<never>;
  private meetHole!: (err: Error) => void;
  private stopped = false;
  private readonly entries = new Map<string, Uint8Array>();
  constructor(nodes: readonly Uint8Array[], codes: readonly Uint8Array[]) {
    for (const node of nodes) this.entries.set(bytesToUnprefixedHex(keccak256(node)), node);
    for (const code of codes) this.entries.set(bytesToUnprefixedHex(concatBytes(utf8ToBytes('c'), keccak256(code))), code);
    this.hole = new Promise<never>((_, reject) => {
      this.meetHole = reject;
    });
    this.hole.catch(() => {});
  }
  async get(key: string): Promise<Uint8Array | undefined> {
    if (this.stopped) return new Promise(() => {});
    const value = this.entries.get(key);
    if (value !== undefined || key === EMPTY_ROOT_KEY) return value;
    this.stopped = true;
    this.meetHole(new Error(`witness lacks ${key.length === 64 ? 'node' : 'code'} 0x${key.length === 64 ? key : key.slice(2)}`));
    return new Promise(() => {});
  }
  async put(key: string, value: string | Uint8Array): Promise<void> {
    if (typeof value !== 'string') this.entries.set(key, value);
  }
  async del(): Promise<void> {}
  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of ops) if (op.type === 'put') await this.put(op.key, op.value);
  }
  shallowCopy(): DB<string, string | Uint8Array> {
    return this;
  }
  async open(): Promise<void> {}
}

/** BLOCKHASH from the witness's headers only, after checking that they chain to the block's parent. */
function headerChain(block: Block, headers: readonly BlockHeader[]): EVMMockBlockchainInterface {
  const parent = headers.at(-1);
  if (!parent || !equalsBytes(parent.hash(), block.header.parentHash)) throw new Error('the last witness header is not the parent');
  for (let i = 0; i + 1 < headers.length; i++) {
    if (!equalsBytes(headers[i].hash(), headers[i + 1].parentHash)) throw new Error(`witness header ${i} is not the parent of header ${i + 1}`);
  }
  const chain: EVMMockBlockchainInterface = {
    async getBlock(blockId: number | bigint) {
      const header = headers.find((h) => h.number === BigInt(blockId));
      if (!header) throw new Error(`the witness has no header ${blockId}`);
      return { hash: () => header.hash() };
    },
    async putBlock() {
      throw new Error('read-only');
    },
    shallowCopy: () => chain,
  };
  return chain;
}

/**
 * Executes `block` on the state the witness proves (the parent header's stateRoot) and returns
 * what it computed. Rejects with `witness lacks node 0x…` (or `code`) at the first trie node or
 * code the run needs that the witness does not hold.
 */
export async function runStateless(common: Common, block: Block, witness: Witness): Promise<StatelessResult> {
  const db = new WitnessDb(witness.nodes, witness.codes);
  const blockchain = headerChain(block, witness.headers);
  const parent = witness.headers.at(-1)!;
  const trie = new MerklePatriciaTrie({ db, root: parent.stateRoot, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes });
  // The request system calls as the specification makes them: the system address is not read.
  const vmCommon = blockVmCommon(common);
  const stateManager = new MerkleStateManager({ common: vmCommon, trie, caches: new Caches() });
  const vm = await createBlockVM({ common: vmCommon, stateManager, blockchain });
  // generate: the roots are compared by the caller.
  const run = executeBlock(vm, { block, generate: true, skipHeaderValidation: true, skipBlockValidation: true, setHardfork: true });
  const result = await Promise.race([run, db.hole]);
  return { stateRoot: result.stateRoot, receiptsRoot: result.receiptsRoot, gasUsed: result.gasUsed };
}
