import { RLP } from '@ethereumjs/rlp';
import { KECCAK256_RLP } from '@ethereumjs/util';
import { keccak256 } from './keccak.js';

/**
 * The root of the Merkle-Patricia trie that maps RLP(i) to `values[i]` (the transactions and
 * withdrawals tries of a block; yellow paper appendix D), computed synchronously.
 */
export function orderedTrieRoot(values: Uint8Array[]): Uint8Array {
  if (values.length === 0) return KECCAK256_RLP;
  const entries = values.map((value, i) => ({ key: nibbles(RLP.encode(i)), value }));
  return keccak256(RLP.encode(trieNode(entries, 0)));
}

type TrieNode = Uint8Array | TrieNode[];
interface Entry {
  key: number[];
  value: Uint8Array;
}

function nibbles(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (const b of bytes) out.push(b >> 4, b & 0x0f);
  return out;
}

/** Hex-prefix encoding of a path (yellow paper appendix C). */
function hexPrefix(path: number[], leaf: boolean): Uint8Array {
  const odd = path.length % 2;
  const flag = (leaf ? 2 : 0) + odd;
  const out = new Uint8Array(1 + (path.length - odd) / 2);
  out[0] = odd ? (flag << 4) | path[0] : flag << 4;
  for (let i = odd, j = 1; i < path.length; i += 2, j++) out[j] = (path[i] << 4) | path[i + 1];
  return out;
}

/** A child as its parent holds it: inline when its encoding is under 32 bytes, else its hash. */
function reference(node: TrieNode): TrieNode {
  const encoded = RLP.encode(node);
  return encoded.length < 32 ? node : keccak256(encoded);
}

/** The node of the entries (distinct keys, all sharing their first `depth` nibbles). */
function trieNode(entries: Entry[], depth: number): TrieNode {
  if (entries.length === 1) return [hexPrefix(entries[0].key.slice(depth), true), entries[0].value];
  let shared = 0;
  const first = entries[0].key;
  while (depth + shared < first.length && entries.every((e) => e.key.length > depth + shared && e.key[depth + shared] === first[depth + shared])) shared++;
  if (shared > 0) return [hexPrefix(first.slice(depth, depth + shared), false), reference(trieNode(entries, depth + shared))];
  const branch: TrieNode[] = Array.from({ length: 17 }, () => new Uint8Array());
  for (let nibble = 0; nibble < 16; nibble++) {
    const group = entries.filter((e) => e.key.length > depth && e.key[depth] === nibble);
    if (group.length > 0) branch[nibble] = reference(trieNode(group, depth + 1));
  }
  const ending = entries.find((e) => e.key.length === depth);
  if (ending) branch[16] = ending.value;
  return branch;
}
