/**
 * The payload range `[start, end)` of the RLP item whose prefix byte is at `offset`, read from the
 * prefix alone (for a list, the range of its encoded items). Nothing is decoded or copied.
 *
 * `end` may lie past the end of `bytes`, and is NaN when the prefix or its length bytes are
 * themselves cut off: callers compare it with their input (`!(end <= bytes.length)`) and report
 * the truncation in their own terms.
 */
export function rlpPayload(bytes: Uint8Array, offset: number): [start: number, end: number] {
  const p = bytes[offset];
  if (p === undefined) return [Number.NaN, Number.NaN];
  if (p < 0x80) return [offset, offset + 1]; // a single byte is its own payload
  if (p <= 0xb7) return [offset + 1, offset + 1 + (p - 0x80)]; // short string
  if (p <= 0xbf) return longPayload(bytes, offset, p - 0xb7); // long string
  if (p <= 0xf7) return [offset + 1, offset + 1 + (p - 0xc0)]; // short list
  return longPayload(bytes, offset, p - 0xf7); // long list
}

/** A long item: `lengthBytes` big-endian bytes of payload length follow the prefix. */
function longPayload(bytes: Uint8Array, offset: number, lengthBytes: number): [number, number] {
  let length = 0;
  for (let i = 1; i <= lengthBytes; i++) length = length * 256 + (bytes[offset + i] ?? Number.NaN);
  const start = offset + 1 + lengthBytes;
  return [start, start + length];
}
