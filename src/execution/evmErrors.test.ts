import { EVMError } from '@ethereumjs/evm';
import { describe, expect, it } from 'vitest';
import { gethErrorText } from './evmErrors.js';

const oog = new EVMError(EVMError.errorMessages.OUT_OF_GAS);
/** An interpreter whose chain is at Istanbul or later, or before it. */
const istanbul = (active: boolean) => ({ common: { gteHardfork: (h: string) => h === 'istanbul' && active } });

describe("geth's error texts", () => {
  // geth's SSTORE gas function fails with "not enough gas for reentrancy sentry" when no more than
  // the call stipend (2,300) is left (EIP-2200), and its interpreter wraps a gas function's error
  // as "out of gas: <error>" (core/vm/interpreter.go); op-revm in anvil 1.7.1 prints the same
  // (test/follow/opFollow.test.ts).
  it('an SSTORE with the stipend or less left is the reentrancy sentry, from Istanbul', () => {
    expect(gethErrorText(oog, { opCode: 0x55, gasLeft: 2300n, interpreter: istanbul(true) })).toBe('out of gas: not enough gas for reentrancy sentry');
    expect(gethErrorText(oog, { opCode: 0x55, gasLeft: 351n, interpreter: istanbul(true) })).toBe('out of gas: not enough gas for reentrancy sentry');
    expect(gethErrorText(oog, { opCode: 0x55, gasLeft: 2301n, interpreter: istanbul(true) })).toBe('out of gas');
    expect(gethErrorText(oog, { opCode: 0x55, gasLeft: 100n, interpreter: istanbul(false) })).toBe('out of gas');
    expect(gethErrorText(oog, { opCode: 0x54, gasLeft: 100n, interpreter: istanbul(true) })).toBe('out of gas');
  });
});
