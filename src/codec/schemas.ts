import { z } from 'zod';
import { dataToBytes, fixedDataToBytes, HexError, quantityToBigInt } from './hex.js';

/**
 * zod schemas for wire values. Each one both checks and decodes, so handlers receive bigint and
 * Uint8Array, never hex strings. Error texts are geth's (`common/hexutil`).
 */

const directDecoders = new WeakMap<z.ZodType, (value: unknown) => unknown>();

/**
 * A schema made of one decoding function, which returns the value or throws a {@link HexError}
 * whose message is the issue. `defineMethod` calls the function directly for a top-level argument
 * ({@link directDecoder}): zod's parse machinery costs more than the decoding itself, on every
 * argument of every request. Inside composite schemas (objects, arrays) zod runs it as a transform.
 */
export function decoderSchema<T>(decode: (value: unknown) => T) {
  const schema = z.unknown().transform((value, ctx): T => {
    try {
      return decode(value);
    } catch (err) {
      if (!(err instanceof HexError)) throw err;
      ctx.addIssue({ code: 'custom', message: err.message });
      return z.NEVER;
    }
  });
  directDecoders.set(schema, decode);
  return schema;
}

/** The decoding function of a schema made by {@link decoderSchema}, or undefined for others. */
export function directDecoder(schema: z.ZodType): ((value: unknown) => unknown) | undefined {
  return directDecoders.get(schema);
}

function hexSchema<T>(decode: (s: string) => T, what: string) {
  return decoderSchema((value): T => {
    if (typeof value !== 'string') throw new HexError(`json: cannot unmarshal ${jsonType(value)} into Go value of type ${what}`);
    return decode(value);
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
/**
 * A fixed-size value (`common.Address`, `common.Hash`), decoded as geth's `UnmarshalFixedJSON`:
 * a malformed hex string's error is wrapped as a JSON type error (`json: cannot unmarshal hex
 * string without 0x prefix into Go value of type common.Hash`), a wrong length is not.
 */
function fixedSchema(size: number, what: string) {
  return hexSchema((s) => {
    let bytes: Uint8Array;
    try {
      bytes = dataToBytes(s);
    } catch (err) {
      if (err instanceof HexError) throw new HexError(`json: cannot unmarshal ${err.message} into Go value of type ${what}`);
      throw err;
    }
    return fixedDataToBytes(s, size, what, bytes);
  }, what);
}

/** A 20-byte address. */
export const Address = fixedSchema(20, 'common.Address');
/** A 32-byte hash. */
export const Hash = fixedSchema(32, 'common.Hash');

/** A JSON string, left undecoded (for inputs whose errors are not `invalid argument i: …`). */
export const RawString = decoderSchema((value): string => {
  if (typeof value !== 'string') throw new HexError(`json: cannot unmarshal ${jsonType(value)} into Go value of type string`);
  return value;
});
