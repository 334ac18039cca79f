import { decodeStorageKey, HexError } from '../../../codec/hex.js';
import { InvalidParamsError } from '../../../rpc/errors.js';

/** Decodes a storage key; a bad one is -32602 with geth's bare message (no argument index). */
export function storageKeyOrThrow(input: string): { slot: Uint8Array; exact32: boolean } {
  try {
    return decodeStorageKey(input);
  } catch (err) {
    if (err instanceof HexError) throw new InvalidParamsError(err.message);
    throw err;
  }
}
