import { bytesToHex, toChecksumAddress } from '@ethereumjs/util';
import { DomainError } from '../errors/domainError.js';

/**
 * How a call ends: the {@link CallResult} of a run (success, revert or EVM failure, in geth's
 * `ExecutionResult` terms, ethereum/go-ethereum `core/state_transition.go`), or one of the errors
 * the call engine throws, each carrying geth's text for `eth_call` and `eth_estimateGas`.
 */

/** How a run ended when it did not succeed. */
export type CallFailure = { kind: 'revert' } | { kind: 'halt'; message: string; outOfGas: boolean };

/** The outcome of one run, in geth's `ExecutionResult` terms. */
export interface CallResult {
  /** Return data, the revert data when reverted, empty on other failures. */
  returnValue: Uint8Array;
  /** Gas used after refunds and the EIP-7623 floor (what a receipt would show). */
  gasUsed: bigint;
  /** Gas used before refunds (at least the floor): what the run needs to be given. */
  peakGasUsed: bigint;
  failure?: CallFailure;
}

/** A failure geth reports as a plain `-32000` error with this message. */
export class CallError extends DomainError {
  override readonly name: 'CallError' | 'MessageError' | 'CallTimeoutError' | 'TraceTimeoutError' = 'CallError';
}

/**
 * The message failed validation before execution (funds, intrinsic gas, fee fields…). `reason` is
 * geth's inner text; the message is the `eth_call` wrapping `err: <reason> (supplied gas N)`.
 */
export class MessageError extends CallError {
  override readonly name = 'MessageError';
  constructor(
    readonly reason: string,
    readonly gas: bigint,
  ) {
    super(`err: ${reason} (supplied gas ${gas})`);
  }
}

/** The run exceeded its deadline (geth's `--rpc.evmtimeout`); geth's text. */
export class CallTimeoutError extends CallError {
  override readonly name = 'CallTimeoutError';
  constructor(ms: number) {
    super(`execution aborted (timeout = ${ms / 1000}s)`);
  }
}

/** eth_estimateGas: the call fails for a reason more gas cannot fix (revert, invalid opcode…). */
export class ExecutionFailedError extends DomainError {
  override readonly name = 'ExecutionFailedError';
  constructor(readonly result: CallResult) {
    super(result.failure?.kind === 'halt' ? result.failure.message : 'execution reverted');
  }
}

/** EIP-55 form, as geth's `Address.Hex()` prints it in error texts. */
export function checksum(address: Uint8Array): string {
  return toChecksumAddress(bytesToHex(address));
}
