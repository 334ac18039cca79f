import { type EVM, NobleBLS } from '@ethereumjs/evm';
import { unsupported } from './upstream.js';

/**
 * Gives `evm` the BLS12-381 backend of the EIP-2537 precompiles when it has none. @ethereumjs/evm
 * 10.1.3 makes it (its private `_bls`) only when EIP-2537 is active in the Common the EVM is
 * built with (read in `evm.ts`, the constructor): an EVM built before Prague that then runs Prague
 * blocks — the importer's VM from the genesis on, a replay's built at the chain's first fork —
 * failed every call to the seven precompiles 0x0b..0x11 (the call takes all its gas), as Sepolia
 * block 10,100,112 showed. Throws when `_bls` is no longer where a precompile reads it.
 */
export function withBlsBackend(evm: EVM): void {
  const self = evm as unknown as Record<string, unknown>;
  if (self._bls !== undefined) return;
  if (!('_bn254' in self)) throw unsupported('@ethereumjs/evm', 'EVM._bls', 'the BLS12-381 backend of the EIP-2537 precompiles');
  const bls = new NobleBLS();
  (bls as { init?: () => void }).init?.();
  self._bls = bls;
}
