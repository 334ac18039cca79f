import { randomBytes } from 'node:crypto';

/**
 * A new subscription or filter id as geth makes them (`rpc/subscription.go`, `NewID`): 16 random
 * bytes in hex, leading zeros trimmed, `0x`-prefixed (ids are quantities on the wire). Random, so
 * one client cannot guess another's.
 */
export function newId(): string {
  const hex = randomBytes(16).toString('hex').replace(/^0+/, '');
  return `0x${hex === '' ? '0' : hex}`;
}
