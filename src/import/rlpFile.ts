import { rlpPayload } from '../codec/rlpPrefix.js';

/**
 * Splits a geth export file (concatenated RLP blocks) into one byte range per block without
 * decoding them, so the importer knows the total count for its progress line and can report the
 * offset of a truncated block.
 */
export function splitRlpItems(bytes: Uint8Array): Uint8Array[] {
  const items: Uint8Array[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const [, end] = rlpPayload(bytes, offset);
    if (!(end <= bytes.length)) {
      const missing = Number.isNaN(end) ? 'its length is cut off' : `needs ${end - bytes.length} more bytes`;
      throw new Error(`truncated RLP item at byte ${offset} (${missing})`);
    }
    items.push(bytes.subarray(offset, end));
    offset = end;
  }
  return items;
}
