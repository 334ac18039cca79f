import { feltToHex64, isFelt } from './felt.js';

/*
 * Readers of the Starknet JSON the importer and the follower take in (blocks, state updates):
 * each checks one value's shape and names where it stands (`where`) when it is wrong.
 */

export function object(v: unknown, where: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${where}: want an object`);
  return v as Record<string, unknown>;
}

export function array(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) throw new Error(`${where}: want an array`);
  return v;
}

/** A felt as given (hex, at most 252 bits). */
export function felt(v: unknown, where: string): string {
  if (isFelt(v)) return v;
  if (typeof v !== 'string') throw new Error(`${where}: want a felt string, got ${v === null ? 'null' : typeof v}`);
  try {
    feltToHex64(v);
  } catch (err) {
    throw new Error(`${where}: ${(err as Error).message}`);
  }
  return v;
}
