/**
 * Splits a geth export file (concatenated RLP blocks) into one byte range per block without
 * decoding them, so the importer knows the total count for its progress line and can report the
 * offset of a truncated block.
 */
export function splitRlpItems(bytes: Uint8Array): Uint8Array[] {
  const items: Uint8Array[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const end = offset + itemLength(bytes, offset);
    if (end > bytes.length) throw new Error(`truncated RLP item at byte ${offset} (needs ${end - bytes.length} more bytes)`);
    items.push(bytes.subarray(offset, end));
    offset = end;
  }
  return items;
}

/** Total encoded length (prefix + payload) of the RLP item starting at `offset`. */
function itemLength(bytes: Uint8Array, offset: number): number {
  const b = bytes[offset];
  if (b < 0x80) return 1;
  if (b <= 0xb7) return 1 + (b - 0x80);
  if (b < 0xc0) return 1 + (b - 0xb7) + readLength(bytes, offset + 1, b - 0xb7);
  if (b <= 0xf7) return 1 + (b - 0xc0);
  return 1 + (b - 0xf7) + readLength(bytes, offset + 1, b - 0xf7);
}

function readLength(bytes: Uint8Array, start: number, size: number): number {
  if (start + size > bytes.length) throw new Error(`truncated RLP length at byte ${start}`);
  let n = 0;
  for (let i = 0; i < size; i++) n = n * 256 + bytes[start + i];
  return n;
}
