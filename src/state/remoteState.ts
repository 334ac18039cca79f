import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, bytesToUnprefixedHex, equalsBytes } from '@ethereumjs/util';
import { keccak256 } from '../codec/keccak.js';
import { MissingTrieNodeError, RemoteStateError, type StateProof, type StateSource } from './stateSource.js';

/**
 * Fetch on miss, for an archive that starts at block N (`chain/archiveStart.ts`). Such a datadir
 * holds no state up front; a read at block M ≥ N that meets a node it does not hold
 * ({@link MissingTrieNodeError}) asks the {@link StateSource} for the proof of the key it was
 * reading, checks it, stores its nodes and reads again.
 *
 * Why the answer is right: a trie node is stored under its keccak256, so a node can only ever be
 * stored under its own hash, and a read that found it found the node its parent names. What must
 * be right is which nodes are let in, and they are only those that hang from a trusted root: the
 * proof's first node must hash to the state root of the block it was asked at (a header of this
 * datadir, {@link StateProof.root}), each further node to a hash its predecessor names, a storage
 * proof's first node to the storage root of an account leaf let in. A proof with one node that
 * does not hang there is refused whole and nothing of it is stored (`invalid`). Then the node
 * that was missing must be among those let in, else the upstream's state at that block does not
 * hold it (`unavailable`). Code is let in only when it hashes to the account's code hash.
 */

/** Reads of one key that may each fill a node before the read holds: the first fill brings the whole path. */
const MAX_FILLS = 4;

/** Where fetched nodes and code are written (the datadir's trie database, `nodeCache.ts`). */
export interface FetchedStateStore {
  /** Writes trie nodes under their hashes (unprefixed hex keys). */
  storeNodes(nodes: ReadonlyMap<string, Uint8Array>): Promise<void>;
  /** Writes contract code under its hash. */
  storeCode(codeHash: Uint8Array, code: Uint8Array): Promise<void>;
}

/** What fetch on miss did since start, by read kind. */
export interface RemoteReadStats {
  account: number;
  storage: number;
  code: number;
  proof: number;
}

/** Fills the nodes and code a partial archive lacks, through a {@link StateSource}. */
export class RemoteState {
  private readonly counts: RemoteReadStats = { account: 0, storage: 0, code: 0, proof: 0 };

  constructor(
    readonly source: StateSource | undefined,
    readonly store: FetchedStateStore,
  ) {}

  /** A read that needed the upstream through another path (execution's fetch on miss, `fetchOnMiss.ts`). */
  note(kind: keyof RemoteReadStats): void {
    this.counts[kind]++;
  }

  /** Reads that needed the upstream, by kind (each counted once, however many fills it took). */
  stats(): RemoteReadStats {
    return { ...this.counts };
  }

  /**
   * `read` again after filling, from the proof of `address` and `slots` at the state `stateRoot`,
   * the node `first` says is missing, and any further node a read meets (at most
   * {@link MAX_FILLS} fills: the first brings the whole path).
   */
  async retry<T>(
    kind: keyof RemoteReadStats,
    first: MissingTrieNodeError,
    read: () => Promise<T>,
    address: Uint8Array,
    slots: readonly Uint8Array[],
    stateRoot: Uint8Array,
  ): Promise<T> {
    this.counts[kind]++;
    let missing = first;
    for (let fills = 1; ; fills++) {
      await this.fill(missing.hash, address, slots, stateRoot);
      try {
        return await read();
      } catch (err) {
        if (!(err instanceof MissingTrieNodeError)) throw err;
        if (fills >= MAX_FILLS) throw new RemoteStateError('unavailable', `${err.message}: still missing after ${fills} proofs from the upstream`);
        missing = err;
      }
    }
  }

  /** The code of `address` at `stateRoot`, fetched, checked against `codeHash` and stored. */
  async code(codeHash: Uint8Array, address: Uint8Array | undefined, stateRoot: Uint8Array | undefined): Promise<Uint8Array> {
    this.counts.code++;
    const source = this.sourceFor(`code ${bytesToHex(codeHash)}`, address, stateRoot);
    const code = await source.code(address!, stateRoot!);
    if (!equalsBytes(keccak256(code), codeHash)) {
      throw new RemoteStateError(
        'invalid',
        `the upstream's code of ${bytesToHex(address!)} does not hash to its code hash ${bytesToHex(codeHash)}: not stored`,
      );
    }
    await this.store.storeCode(codeHash, code);
    return code;
  }

  /** Fetches the proof of `address`/`slots`, stores the nodes that hang from its trusted root; `missing` must be among them. */
  private async fill(missing: Uint8Array, address: Uint8Array, slots: readonly Uint8Array[], stateRoot: Uint8Array): Promise<void> {
    const source = this.sourceFor(`trie node ${bytesToHex(missing)}`, address, stateRoot);
    const proof = await source.proveAccount(address, slots, stateRoot);
    const nodes = provenNodes(proof);
    if (!nodes.has(bytesToUnprefixedHex(missing))) {
      throw new RemoteStateError(
        'unavailable',
        `missing trie node ${bytesToHex(missing)}: the upstream's state no longer holds it (its proof of ${bytesToHex(address)} at state ${bytesToHex(proof.root)} does not reach it)`,
      );
    }
    await this.store.storeNodes(nodes);
  }

  private sourceFor(what: string, address: Uint8Array | undefined, stateRoot: Uint8Array | undefined): StateSource {
    if (this.source === undefined) {
      throw new RemoteStateError(
        'noSource',
        `${what} is not held locally (an archive from block N) and no node is followed to fetch it from (serve with --follow)`,
      );
    }
    if (address === undefined || stateRoot === undefined) throw new Error(`${what} is missing and the read did not say which account it belongs to`);
    return this.source;
  }
}

/**
 * The nodes of `proof` that hang from its root, by unprefixed hex hash: the account proof's from
 * `proof.root`, each storage proof's from the storage root of an account leaf among them. Throws
 * `invalid` when any node does not, so that nothing of a tampered answer is stored.
 */
export function provenNodes(proof: StateProof, codeHashes?: Set<string>): Map<string, Uint8Array> {
  const accepted = new Map<string, Uint8Array>();
  const storageRoots = new Set<string>();
  const leaves: AccountLeaves = { storageRoots, codeHashes: codeHashes ?? new Set() };
  walkProof(proof.accountProof, new Set([bytesToUnprefixedHex(proof.root)]), accepted, leaves, 'account');
  for (const [i, nodes] of proof.storageProofs.entries()) walkProof(nodes, storageRoots, accepted, undefined, `storage ${i}`);
  return accepted;
}

/** What the account leaves among accepted nodes name: storage roots (whose nodes may follow) and code hashes. */
interface AccountLeaves {
  storageRoots: Set<string>;
  codeHashes: Set<string>;
}

/**
 * The nodes of an unordered set (an execution witness's `state`) that hang from `root`: the
 * state trie's from the root, each storage trie's from the storage root of an account leaf among
 * them; with the code hashes those account leaves name (unprefixed hex). `unreachable` counts the
 * others, which nothing trusted names. A node shorter than 32 bytes lives inside its parent, not
 * under its hash; reth's witness lists such a node too: one embedded in a node let in is part of
 * that node, neither stored nor counted.
 */
export function hangingNodes(
  root: Uint8Array,
  nodes: readonly Uint8Array[],
): { accepted: Map<string, Uint8Array>; codeHashes: Set<string>; unreachable: number } {
  const byHash = new Map<string, Uint8Array>();
  for (const node of nodes) if (node.length !== 1 || node[0] !== 0x80) byHash.set(bytesToUnprefixedHex(keccak256(node)), node);
  const accepted = new Map<string, Uint8Array>();
  const leaves: AccountLeaves = { storageRoots: new Set(), codeHashes: new Set() };
  const embedded = new Set<string>();
  // Account-trie nodes name children and account leaves; storage-trie nodes name children only.
  const queue: Array<[string, boolean]> = [[bytesToUnprefixedHex(root), true]];
  while (queue.length > 0) {
    const [hash, accountTrie] = queue.pop()!;
    const node = byHash.get(hash);
    if (node === undefined || accepted.has(hash)) continue;
    accepted.set(hash, node);
    const roots = new Set<string>();
    for (const child of childHashes(node, accountTrie ? { storageRoots: roots, codeHashes: leaves.codeHashes } : undefined, embedded))
      queue.push([child, accountTrie]);
    for (const storageRoot of roots) queue.push([storageRoot, false]);
  }
  let unreachable = 0;
  for (const [hash, node] of byHash) if (!accepted.has(hash) && !(node.length < 32 && embedded.has(bytesToUnprefixedHex(node)))) unreachable++;
  return { accepted, codeHashes: leaves.codeHashes, unreachable };
}

/**
 * Lets in the nodes of one proof, root first: each must hash to a name in `expected` (which grows
 * with the children each node names); an account leaf's storage root goes to `storageRoots`.
 */
function walkProof(
  nodes: readonly Uint8Array[],
  roots: ReadonlySet<string>,
  accepted: Map<string, Uint8Array>,
  leaves: AccountLeaves | undefined,
  what: string,
): void {
  const expected = new Set(roots);
  const embedded = new Set<string>();
  for (const [i, node] of nodes.entries()) {
    // The empty trie's root node (0x80), which anvil gives as the proof of a key of an empty or absent storage: nothing to store.
    if (node.length === 1 && node[0] === 0x80) continue;
    // A node embedded in the one before it (shorter than 32 bytes), listed on its own: part of that node.
    if (node.length < 32 && embedded.has(bytesToUnprefixedHex(node))) continue;
    const hash = nodeHash(node);
    if (!expected.has(hash)) {
      throw new RemoteStateError('invalid', `node ${i} of the upstream's ${what} proof (hash 0x${hash}) does not hang from the trusted state root: not stored`);
    }
    accepted.set(hash, node);
    for (const child of childHashes(node, leaves, embedded)) expected.add(child);
  }
}

/** Hashes of the proof nodes seen, by node: a node the answers repeat (interned by `parseProof`) is hashed once. */
const hashes = new WeakMap<Uint8Array, string>();

/** The unprefixed hex keccak of a trie node. */
function nodeHash(node: Uint8Array): string {
  let hash = hashes.get(node);
  if (hash === undefined) {
    hash = bytesToUnprefixedHex(keccak256(node));
    hashes.set(node, hash);
  }
  return hash;
}

/**
 * The hashes a trie node names: a branch's children, an extension's child; an account leaf's
 * storage root and code hash go to `leaves`, and the children it holds inline (nodes shorter than
 * 32 bytes), as RLP in unprefixed hex, to `embedded`.
 */
function childHashes(node: Uint8Array, leaves: AccountLeaves | undefined, embedded?: Set<string>): string[] {
  let items: unknown;
  try {
    items = RLP.decode(node);
  } catch {
    throw new RemoteStateError('invalid', 'the upstream answered a proof node that is not RLP');
  }
  if (!Array.isArray(items)) return [];
  const ref = (item: unknown): string[] => {
    if (item instanceof Uint8Array) return item.length === 32 ? [bytesToUnprefixedHex(item)] : [];
    if (Array.isArray(item) && embedded !== undefined) {
      embedded.add(bytesToUnprefixedHex(RLP.encode(item)));
      // An embedded branch may hold embedded children of its own; none can name a hash.
      childHashes(RLP.encode(item), undefined, embedded);
    }
    return [];
  };
  if (items.length === 17) return items.slice(0, 16).flatMap(ref);
  if (items.length !== 2 || !(items[0] instanceof Uint8Array) || items[0].length === 0) return [];
  const leaf = items[0][0] >> 4 >= 2;
  if (!leaf) return ref(items[1]);
  if (leaves !== undefined && items[1] instanceof Uint8Array) {
    const account = safeDecode(items[1]);
    if (Array.isArray(account) && account.length === 4 && account[2] instanceof Uint8Array && account[2].length === 32) {
      leaves.storageRoots.add(bytesToUnprefixedHex(account[2]));
      if (account[3] instanceof Uint8Array && account[3].length === 32) leaves.codeHashes.add(bytesToUnprefixedHex(account[3]));
    }
  }
  return [];
}

function safeDecode(bytes: Uint8Array): unknown {
  try {
    return RLP.decode(bytes);
  } catch {
    return undefined;
  }
}
