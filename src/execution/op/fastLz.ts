/**
 * The length FastLZ (level 1) compresses a byte string to, without building the output: what the
 * OP stack charges L1 data by since Fjord (the transaction's RLP bytes, `l1Cost.ts`) and what the
 * GasPriceOracle predeploy computes on chain (Solady's LibZip.flzCompress). Every implementation
 * that takes part in consensus must count exactly as that one does, so this follows its steps: a
 * 13-bit hash table of 3-byte sequences, matches within 8 KiB, literal runs of at most 32 bytes,
 * and the tail of 13 bytes left as literals.
 */

/** Positions of the table are hashed from a 3-byte sequence; 2^13 entries. */
const TABLE_SIZE = 1 << 13;
/** A match is only taken within this distance. */
const MAX_DISTANCE = 8192;
/** The last bytes never start a match. */
const TAIL = 13;

/** The 3 bytes at `at`, little-endian. */
function sequenceAt(data: Uint8Array, at: number): number {
  return data[at] | (data[at + 1] << 8) | (data[at + 2] << 16);
}

/** Bits 19..31 of the sequence times 2654435769 (Knuth's multiplicative hash), as a table index. */
function slotOf(sequence: number): number {
  // Only the low 32 bits of the product reach the index, and Math.imul keeps exactly those.
  return (Math.imul(sequence, 0x9e3779b9) >>> 19) & (TABLE_SIZE - 1);
}

/** Bytes that `count` literals take: a run header per 32 of them, and one for the rest. */
function literalBytes(count: number): number {
  const rest = count % 32;
  return 33 * Math.floor(count / 32) + (rest === 0 ? 0 : rest + 1);
}

/** Bytes a match of `length` (as the reference counts it: matched bytes + 1) takes. */
function matchBytes(length: number): number {
  const l = length - 1;
  return 3 * Math.floor(l / 262) + (l % 262 >= 6 ? 3 : 2);
}

/**
 * The reference's match length from `from` against `at`, compared up to `end`: the bytes that
 * agree, plus one (the loop counts the byte that differs, or runs to `end`).
 */
function matchLength(data: Uint8Array, from: number, at: number, end: number): number {
  let length = 0;
  let stop = end - at;
  while (length < stop) {
    if (data[from + length] !== data[at + length]) stop = 0;
    length++;
  }
  return length;
}

/** The FastLZ level-1 compressed length of `data`, in bytes. */
export function flzCompressLength(data: Uint8Array): number {
  const limit = data.length < TAIL ? 0 : data.length - TAIL;
  const table = new Uint32Array(TABLE_SIZE);
  let size = 0;
  let anchor = 0;
  let at = 2;
  while (at < limit) {
    let candidate = 0;
    // Find the next position whose 3 bytes were seen within the window.
    for (;;) {
      const sequence = sequenceAt(data, at);
      const slot = slotOf(sequence);
      candidate = table[slot];
      table[slot] = at;
      const distance = at - candidate;
      if (at >= limit) break;
      at++;
      if (distance < MAX_DISTANCE && sequence === sequenceAt(data, candidate)) break;
    }
    if (at >= limit) break;
    at--;
    if (at > anchor) size += literalBytes(at - anchor);
    const length = matchLength(data, candidate + 3, at + 3, limit + 9);
    size += matchBytes(length);
    at += length;
    // The two positions after the match enter the table.
    table[slotOf(sequenceAt(data, at))] = at;
    at++;
    table[slotOf(sequenceAt(data, at))] = at;
    at++;
    anchor = at;
  }
  return size + literalBytes(data.length - anchor);
}
