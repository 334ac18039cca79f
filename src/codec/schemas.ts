import { z } from 'zod';
import { dataToBytes, fixedDataToBytes, HexError, quantityToBigInt } from './hex.js';

/**
 * zod schemas for wire values. Each one both checks and decodes, so handlers receive bigint and
 * Uint8Array, never hex strings. Error texts are geth's (`common/hexutil`).
 */

/**
 * A schema that names what a client sends for it, in its type only (`'~wire'` is never set): the
 * wire arguments of a method (`WireParams`, `rpc/method.ts`) are built from it, so a typed client
 * is checked against what the method decodes. Without it a schema's wire type is zod's input type.
 */
export type Wired<S extends z.ZodType, W> = S & { readonly '~wire'?: W };

/** Names the wire type `W` of a schema (types only: returns the schema itself). */
export function wire<W>(): <S extends z.ZodType>(schema: S) => Wired<S, W> {
  return (schema) => schema;
}

/** A `0x`-prefixed hex string on the wire (a quantity, data, an address or a hash). */
export type HexString = string;

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
  return wire<HexString>()(
    decoderSchema((value): T => {
      if (typeof value !== 'string') throw new HexError(`json: cannot unmarshal ${jsonType(value)} into Go value of type ${what}`);
      return decode(value);
    }),
  );
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
export const RawString = wire<string>()(
  decoderSchema((value): string => {
    if (typeof value !== 'string') throw new HexError(`json: cannot unmarshal ${jsonType(value)} into Go value of type string`);
    return value;
  }),
);

/** A Parity trace type (OpenEthereum's and reth's `TraceType`). */
export type TraceTypeName = 'trace' | 'vmTrace' | 'stateDiff';
const TRACE_TYPES: readonly TraceTypeName[] = ['vmTrace', 'trace', 'stateDiff'];

/**
 * The trace types of ad-hoc Parity tracing: a list of `trace`, `vmTrace`, `stateDiff` (repeats
 * allowed, a set in reth), with serde's texts for anything else as reth answers them.
 */
export const TraceTypeList = wire<readonly TraceTypeName[]>()(
  z.unknown().transform((value, ctx): Set<TraceTypeName> => {
    if (!Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: `invalid type: ${jsonType(value)}, expected a sequence` });
      return z.NEVER;
    }
    const out = new Set<TraceTypeName>();
    for (const item of value) {
      if (typeof item !== 'string' || !(TRACE_TYPES as readonly string[]).includes(item)) {
        const shown = typeof item === 'string' ? `variant \`${item.slice(0, 64)}\`` : `type: ${jsonType(item)}`;
        ctx.addIssue({ code: 'custom', message: `unknown ${shown}, expected one of ${TRACE_TYPES.map((t) => `\`${t}\``).join(', ')}` });
        return z.NEVER;
      }
      out.add(item as TraceTypeName);
    }
    return out;
  }),
);

/** trace_get's trace address: a list of indexes, each a hex quantity or a JSON integer (reth's `Index`). */
export const TraceIndexList = wire<readonly (HexString | number)[]>()(
  z.unknown().transform((value, ctx): number[] => {
    if (!Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: `invalid type: ${jsonType(value)}, expected a sequence` });
      return z.NEVER;
    }
    const out: number[] = [];
    for (const item of value) {
      let n: number | undefined;
      if (typeof item === 'number' && Number.isSafeInteger(item) && item >= 0) n = item;
      else if (typeof item === 'string') {
        const parsed = Quantity64.safeParse(item);
        if (parsed.success && parsed.data <= BigInt(Number.MAX_SAFE_INTEGER)) n = Number(parsed.data);
      }
      if (n === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `invalid index ${typeof item === 'string' ? JSON.stringify(item.slice(0, 66)) : jsonType(item)}: expected a hex quantity or a non-negative integer`,
        });
        return z.NEVER;
      }
      out.push(n);
    }
    return out;
  }),
);
