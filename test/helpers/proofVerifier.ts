import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from 'ethereum-cryptography/keccak.js';

/**
 * An independent Merkle-Patricia proof checker, written from the yellow paper (appendix D) for
 * tests: it shares no code with @ethereumjs/mpt, which produces our proofs. It walks the key's
 * nibbles from the root through the proof nodes and returns the leaf value, or `null` when the
 * proof shows the key is absent. Any inconsistency throws.
 */
export function verifyProof(root: Uint8Array, key: Uint8Array, proof: readonly Uint8Array[]): Uint8Array | null {
  const path = toNibbles(keccak256(key));
  let pos = 0; // nibbles consumed
  let used = 0; // proof nodes consumed
  // A reference is a 32-byte hash of the next proof node, or a node inlined in its parent.
  let ref: Uint8Array | unknown[] = root;
  for (;;) {
    let node: unknown[];
    if (ref instanceof Uint8Array) {
      if (ref.length !== 32) throw new Error(`bad reference of ${ref.length} bytes`);
      const encoded = proof[used++];
      if (!encoded) throw new Error('proof ends before the key is resolved');
      if (!equal(keccak256(encoded), ref)) throw new Error(`proof node ${used - 1} does not hash to its reference`);
      node = RLP.decode(encoded) as unknown[];
    } else {
      node = ref;
    }
    if (!Array.isArray(node)) throw new Error('trie node is not a list');
    if (node.length === 17) {
      if (pos === path.length) return finish((node[16] as Uint8Array).length ? (node[16] as Uint8Array) : null);
      const child = node[path[pos++]] as Uint8Array | unknown[];
      if (child instanceof Uint8Array && child.length === 0) return finish(null);
      ref = child;
      continue;
    }
    if (node.length === 2) {
      const { nibbles, leaf } = decodeHexPrefix(node[0] as Uint8Array);
      const rest = path.slice(pos);
      if (leaf) return finish(sameNibbles(rest, nibbles) ? (node[1] as Uint8Array) : null);
      if (!startsWith(rest, nibbles)) return finish(null);
      pos += nibbles.length;
      ref = node[1] as Uint8Array | unknown[];
      continue;
    }
    throw new Error(`trie node with ${node.length} items`);
  }

  function finish(value: Uint8Array | null): Uint8Array | null {
    if (used !== proof.length) throw new Error(`proof has ${proof.length - used} unused node(s)`);
    return value;
  }
}

/** Hex-prefix decoding (yellow paper appendix C): flag nibble, optional pad nibble, path. */
function decodeHexPrefix(encoded: Uint8Array): { nibbles: number[]; leaf: boolean } {
  const all = toNibbles(encoded);
  const flag = all[0];
  if (flag > 3) throw new Error(`bad hex-prefix flag ${flag}`);
  return { nibbles: all.slice(flag & 1 ? 1 : 2), leaf: (flag & 2) !== 0 };
}

function toNibbles(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (const b of bytes) out.push(b >> 4, b & 15);
  return out;
}

function startsWith(a: number[], prefix: number[]): boolean {
  return prefix.length <= a.length && prefix.every((n, i) => a[i] === n);
}

function sameNibbles(a: number[], b: number[]): boolean {
  return a.length === b.length && startsWith(a, b);
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
