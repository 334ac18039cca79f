import type { StoredLog } from '../../../chain/receipts.js';
import { keccak256 } from '../../../codec/keccak.js';

/** Byte length of a logs bloom (2048 bits), as in every header and receipt. */
export const BLOOM_BYTES = 256;

/**
 * The three bloom bits of one value (an address or a topic), per the Yellow Paper §4.3.1 `M3:2048`:
 * bytes (0,1), (2,3), (4,5) of keccak256(value), each pair taken mod 2048. Returned as
 * `[byteIndex, mask]` pairs in the big-endian layout headers use.
 */
export type BloomBits = ReadonlyArray<readonly [index: number, mask: number]>;

/** See above; computed once per filter value so that a range scan hashes nothing per block. */
export function bloomBits(value: Uint8Array): BloomBits {
  const hash = keccak256(value);
  const out: Array<[number, number]> = [];
  for (let i = 0; i < 6; i += 2) {
    const bit = ((hash[i] << 8) | hash[i + 1]) & 2047;
    out.push([BLOOM_BYTES - 1 - (bit >> 3), 1 << (bit & 7)]);
  }
  return out;
}

/** The bloom of a list of logs (each log adds its address and every topic): a receipt's `logsBloom`. */
export function logsBloom(logs: readonly StoredLog[]): Uint8Array {
  const bloom = new Uint8Array(BLOOM_BYTES);
  for (const [address, topics] of logs) {
    for (const [index, mask] of bloomBits(address)) bloom[index] |= mask;
    for (const topic of topics) for (const [index, mask] of bloomBits(topic)) bloom[index] |= mask;
  }
  return bloom;
}

/** Whether a value with these bits may be in the set the bloom summarises (false means surely not). */
export function bloomMayContain(bloom: Uint8Array, bits: BloomBits): boolean {
  for (const [index, mask] of bits) if ((bloom[index] & mask) === 0) return false;
  return true;
}
