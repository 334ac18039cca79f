import { RLP } from '@ethereumjs/rlp';
import { equalsBytes, KECCAK256_RLP } from '@ethereumjs/util';
import { keccak256 } from '../codec/keccak.js';

/**
 * Walking one key's path through a Merkle-Patricia trie held in the archive, node by node from
 * its root, without @ethereumjs/mpt: for fetch on miss (`fetchOnMiss.ts`), which must find where
 * in a state trie a node it does not hold hangs, and for the bounded search of a key under a
 * path (a deletion that collapses a branch needs the sibling node, which only a proof of a key
 * under it brings).
 */

/** A node of the walk: the nibbles that lead to it from the root and its RLP items. */
export interface WalkStep {
  prefix: number[];
  items: unknown[];
}

/** The nodes on a key's path, root first; `missing`: the first node on it the lookup did not hold. */
export interface KeyWalk {
  steps: WalkStep[];
  missing?: Uint8Array;
  /** The key's value (a leaf's or a branch's), null when the key is absent; undefined when the walk stopped at `missing`. */
  value?: Uint8Array | null;
}

/** A trie node by its hash, when held: its RLP, or its items already decoded (a cache of them). */
export type NodeLookup = (hash: Uint8Array) => Promise<Uint8Array | unknown[] | undefined>;

/** The nibbles of `bytes`, high first. */
export function nibblesOf(bytes: Uint8Array): number[] {
  const out = new Array<number>(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    out[2 * i] = bytes[i] >> 4;
    out[2 * i + 1] = bytes[i] & 15;
  }
  return out;
}

/** A leaf's or an extension's path (hex-prefix encoding). */
function hexPrefix(encoded: Uint8Array): { nibbles: number[]; leaf: boolean } {
  const all = nibblesOf(encoded);
  const flag = all[0];
  return { nibbles: all.slice(flag & 1 ? 1 : 2), leaf: flag >= 2 };
}

/**
 * The path of `hashedKey` (a secure trie's key: keccak256 of the address or slot) in the trie
 * `root`, read through `lookup`. Stops at the first node not held, or where the key's path ends.
 */
export async function walkKey(lookup: NodeLookup, root: Uint8Array, hashedKey: Uint8Array): Promise<KeyWalk> {
  const key = nibblesOf(hashedKey);
  const steps: WalkStep[] = [];
  if (equalsBytes(root, KECCAK256_RLP)) return { steps, value: null };
  let ref: unknown = root;
  let pos = 0;
  for (;;) {
    let items: unknown;
    if (ref instanceof Uint8Array) {
      const node = await lookup(ref);
      if (node === undefined) return { steps, missing: ref };
      items = node instanceof Uint8Array ? RLP.decode(node) : node;
    } else items = ref; // a node embedded in its parent (under 32 bytes)
    if (!Array.isArray(items)) throw new Error('a trie node that is not an RLP list');
    steps.push({ prefix: key.slice(0, pos), items });
    if (items.length === 17) {
      if (pos === key.length) return { steps, value: nonEmpty(items[16]) };
      const child = items[key[pos]];
      if (child instanceof Uint8Array && child.length === 0) return { steps, value: null };
      ref = child;
      pos++;
      continue;
    }
    const { nibbles, leaf } = hexPrefix(items[0] as Uint8Array);
    const matches = nibbles.every((n, i) => key[pos + i] === n);
    if (leaf) return { steps, value: matches && pos + nibbles.length === key.length ? (items[1] as Uint8Array) : null };
    if (!matches) return { steps, value: null };
    pos += nibbles.length;
    ref = items[1];
  }
}

function nonEmpty(value: unknown): Uint8Array | null {
  return value instanceof Uint8Array && value.length > 0 ? value : null;
}

/**
 * Where `hash` hangs off a walked path: the nibbles that lead to it, when a branch (or an
 * extension) of the walk names it as a child; undefined when none does.
 */
export function childPrefix(walk: KeyWalk, hash: Uint8Array): number[] | undefined {
  for (const { prefix, items } of walk.steps) {
    if (items.length === 17) {
      for (let i = 0; i < 16; i++) {
        const child = items[i];
        if (child instanceof Uint8Array && child.length === 32 && equalsBytes(child, hash)) return [...prefix, i];
      }
    } else if (items[1] instanceof Uint8Array && equalsBytes(items[1], hash)) {
      const { nibbles, leaf } = hexPrefix(items[0] as Uint8Array);
      if (!leaf) return [...prefix, ...nibbles];
    }
  }
  return undefined;
}

/** What {@link keyUnderPrefix} tried. */
export interface KeySearch {
  key: Uint8Array | undefined;
  /** keccak256 computations made. */
  hashes: number;
  ms: number;
}

/** Hashes between yields to the event loop: a long search must not hold the thread's other work. */
const YIELD_EVERY = 1 << 15;

/**
 * A key of `length` bytes (20: an address, 32: a storage slot) whose keccak256 starts with the
 * nibbles `prefix`: the counter 0, 1, 2, … big-endian, tried in turn. Expected 16^n hashes for n
 * nibbles (~0.5 µs each on the 2-core test box with hash-wasm: 33 ms at 4 nibbles, 0.5 s at 5,
 * ~8 s at 6, ~2 min at 7); at most `maxNibbles` nibbles are searched for (undefined beyond), and at most 16
 * times the expected count (a miss then has odds of e^-16).
 */
export async function keyUnderPrefix(prefix: readonly number[], length: 20 | 32, maxNibbles: number): Promise<KeySearch> {
  const t0 = performance.now();
  if (prefix.length > maxNibbles) return { key: undefined, hashes: 0, ms: 0 };
  const limit = 16 * 16 ** prefix.length;
  const key = new Uint8Array(length);
  const view = new DataView(key.buffer);
  for (let i = 0; i < limit; i++) {
    view.setUint32(length - 4, i);
    const hash = keccak256(key);
    if (startsWith(hash, prefix)) return { key, hashes: i + 1, ms: performance.now() - t0 };
    if ((i + 1) % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
  }
  return { key: undefined, hashes: limit, ms: performance.now() - t0 };
}

function startsWith(hash: Uint8Array, prefix: readonly number[]): boolean {
  for (let i = 0; i < prefix.length; i++) {
    const nibble = i & 1 ? hash[i >> 1] & 15 : hash[i >> 1] >> 4;
    if (nibble !== prefix[i]) return false;
  }
  return true;
}
