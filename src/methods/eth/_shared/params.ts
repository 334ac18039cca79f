import { z } from 'zod';
import { HexError, quantityToBigInt } from '../../../codec/hex.js';
import { quoteString } from '../../../codec/quote.js';
import { type HexString, jsonType, wire } from '../../../codec/schemas.js';

/** A JSON boolean (geth `bool` argument: the `fullTx` flag of the block getters). */
export const Bool = wire<boolean>()(
  z.unknown().transform((value, ctx): boolean => {
    if (typeof value !== 'boolean') {
      ctx.addIssue({ code: 'custom', message: `json: cannot unmarshal ${jsonType(value)} into Go value of type bool` });
      return z.NEVER;
    }
    return value;
  }),
);

/** A list position (geth `hexutil.Uint`): a 64-bit quantity, as a number (lists never reach 2^53). */
export const Index = wire<HexString>()(
  z.unknown().transform((value, ctx): number => {
    if (typeof value !== 'string') {
      ctx.addIssue({ code: 'custom', message: `json: cannot unmarshal ${jsonType(value)} into Go value of type hexutil.Uint` });
      return z.NEVER;
    }
    try {
      const n = quantityToBigInt(value, 64);
      return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
    } catch (err) {
      if (!(err instanceof HexError)) throw err;
      ctx.addIssue({ code: 'custom', message: err.message });
      return z.NEVER;
    }
  }),
);

/**
 * A count as geth's `math.HexOrDecimal64` reads it (the `blockCount` of `eth_feeHistory`): a JSON
 * number, or a string holding a decimal or `0x` hex 64-bit integer (leading zeros allowed; empty
 * string = 0). Its own format, so it is decoded here rather than by the strict codec.
 */
export const HexOrDecimal64 = wire<HexString | number>()(
  z.unknown().transform((value, ctx): bigint => {
    const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
    if (text === undefined) {
      ctx.addIssue({ code: 'custom', message: `json: cannot unmarshal ${jsonType(value)} into Go value of type math.HexOrDecimal64` });
      return z.NEVER;
    }
    let n: bigint | undefined;
    if (text === '') n = 0n;
    else if (/^0[xX][0-9a-fA-F]+$/.test(text)) n = BigInt(`0x${text.slice(2)}`);
    else if (/^[0-9]+$/.test(text)) n = BigInt(text);
    if (n === undefined || n >= 1n << 64n) {
      ctx.addIssue({ code: 'custom', message: `invalid hex or decimal integer ${quoteString(text)}` });
      return z.NEVER;
    }
    return n;
  }),
);

/** A JSON array of numbers (geth `[]float64`); null is an empty list. */
export const FloatList = wire<readonly number[] | null>()(
  z.unknown().transform((value, ctx): number[] => {
    if (value === null) return [];
    if (!Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: `json: cannot unmarshal ${jsonType(value)} into Go value of type []float64` });
      return z.NEVER;
    }
    for (const item of value) {
      if (typeof item !== 'number') {
        ctx.addIssue({ code: 'custom', message: `json: cannot unmarshal ${jsonType(item)} into Go value of type float64` });
        return z.NEVER;
      }
    }
    return value as number[];
  }),
);
