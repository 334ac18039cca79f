import { rlpPayload } from '../codec/rlpPrefix.js';

/**
 * Splits a geth export file (concatenated RLP blocks) into one byte range per block without
 * decoding them, so the importer knows the total count for its progress line and can report the
 * offset of a truncated block.
 */
export function splitRlpItems(bytes: Uint8Array): Uint8Array[] {
  const { items, truncated } = splitRlpFile(bytes);
  if (truncated !== undefined) throw new Error(truncated);
  return items;
}

/** The whole RLP items of a file, and, when it ends in a cut-off one, what is wrong with it. */
export function splitRlpFile(bytes: Uint8Array): { items: Uint8Array[]; truncated?: string } {
  const items: Uint8Array[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const [, end] = rlpPayload(bytes, offset);
    if (!(end <= bytes.length)) {
      const missing = Number.isNaN(end) ? 'its length is cut off' : `needs ${end - bytes.length} more bytes`;
      return { items, truncated: `truncated RLP item at byte ${offset} (${missing})` };
    }
    items.push(bytes.subarray(offset, end));
    offset = end;
  }
  return { items };
}
