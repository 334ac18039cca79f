import type { EVM, Message } from '@ethereumjs/evm';
import type { Address } from '@ethereumjs/util';
import { unsupported } from './upstream.js';

/* What tracers read of the EVM's messages and frames that @ethereumjs/evm keeps private. */

/**
 * The address a creation message will create at, as the EVM derives it (`_generateAddress`: the
 * caller's nonce, or CREATE2's salt and code), for tracers that see the message before the EVM
 * assigns its `to`. Called from a `beforeMessage` listener it gives what the EVM computes next.
 */
export async function createdAddress(evm: EVM, message: unknown): Promise<Address> {
  const generate = (evm as unknown as { _generateAddress?: (m: unknown) => Promise<Address> })._generateAddress;
  if (typeof generate !== 'function') throw unsupported('@ethereumjs/evm', 'EVM._generateAddress', 'the address a creation makes');
  return generate.call(evm, message);
}

/**
 * The address whose code a CALLCODE or DELEGATECALL message runs (the callee: its `to` stays the
 * calling contract); undefined for every other message. @ethereumjs/evm keeps it in Message's
 * private `_codeAddress`, set by the constructor (to undefined when none is given); the public
 * `codeAddress` getter cannot tell the two apart, as it falls back to `to` (and throws for a
 * creation). Throws if a message has no such field or holds something else than an address in it.
 */
export function borrowedCodeAddress(message: Message): Address | undefined {
  const fields = message as unknown as { _codeAddress?: unknown };
  const address = fields._codeAddress;
  if (address === undefined && '_codeAddress' in fields) return undefined;
  if (!((address as { bytes?: unknown } | null)?.bytes instanceof Uint8Array)) {
    throw unsupported('@ethereumjs/evm', 'Message._codeAddress', 'the code a CALLCODE or DELEGATECALL runs');
  }
  return address as Address;
}

/**
 * The first `length` bytes of an @ethereumjs/evm Memory (a frame's memory: `length` is its word
 * count times 32), a view without a copy. The public `read(offset, size)` would extend the memory
 * to the range read: this reads the private `_store` (which grows in 8 KiB steps) as it is.
 * Throws if the memory has no `_store` array.
 */
export function memoryBytes(memory: unknown, length: number): Uint8Array {
  const store = (memory as { _store?: unknown } | undefined)?._store;
  if (!(store instanceof Uint8Array)) throw unsupported('@ethereumjs/evm', 'Memory._store', 'the bytes of an EVM memory');
  return store.subarray(0, length);
}
