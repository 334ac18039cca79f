import { z } from 'zod';
import { HexError, dataToBytes, fixedDataToBytes, quantityToBigInt } from './hex.js';

/**
 * zod schemas for wire values. Each one both checks and decodes, so handlers receive bigint and
 * Uint8Array, never hex strings. Error texts are geth's (`common/hexutil`).
 */
function hexSchema<T>(decode: (s: string) => T, what: string) {
  return z.unknown().transform((value, ctx): T => {
    if (typeof value !== 'string') {
      ctx.addIssue({ code: 'custom', message: `json: cannot unmarshal ${jsonType(value)} into Go value of type ${what}` });
      return z.NEVER;
    }
    try {
      return decode(value);
    } catch (err) {
      if (!(err instanceof HexError)) throw err;
      ctx.addIssue({ code: 'custom', message: err.message });
      return z.NEVER;
    }
  });
}

/** The JSON type name geth's decoder reports (`number`, `object`, …). */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** A 256-bit quantity (`0x1b4`). */
export const Quantity = hexSchema((s) => quantityToBigInt(s), '*hexutil.Big');
/** A 64-bit quantity (block numbers, indexes, nonces). */
export const Quantity64 = hexSchema((s) => quantityToBigInt(s, 64), 'hexutil.Uint64');
/** Arbitrary-length data (`0x…`). */
export const Data = hexSchema(dataToBytes, 'hexutil.Bytes');
/** A 20-byte address. */
export const Address = hexSchema((s) => fixedDataToBytes(s, 20, 'common.Address'), 'common.Address');
/** A 32-byte hash. */
export const Hash = hexSchema((s) => fixedDataToBytes(s, 32, 'common.Hash'), 'common.Hash');

/** A JSON string, left undecoded (for inputs whose errors are not `invalid argument i: …`). */
export const RawString = z.unknown().transform((value, ctx): string => {
  if (typeof value !== 'string') {
    ctx.addIssue({ code: 'custom', message: `json: cannot unmarshal ${jsonType(value)} into Go value of type string` });
    return z.NEVER;
  }
  return value;
});
