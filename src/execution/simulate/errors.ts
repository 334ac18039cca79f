import { DomainError } from '../../errors/domainError.js';
/**
 * Why an eth_simulateV1 request fails as a whole, in the cases geth gives a code of their own
 * (ethereum/go-ethereum `internal/ethapi/errors.go`: `txValidationError`, `errCode*`); `methods/`
 * gives each kind its wire code. A call that runs and fails is a result, not an error.
 */

/**
 * The cases, named after geth's errors: a message that cannot be included (nonce, fees, funds,
 * intrinsic gas, init code; `invalidTransaction` for any other check), a block that runs out of
 * gas, and a chain whose numbers or times go backwards or that spans too many blocks.
 */
export type SimulateErrorKind =
  | 'nonceTooLow'
  | 'nonceTooHigh'
  | 'baseFeeTooLow'
  | 'intrinsicGas'
  | 'insufficientFunds'
  | 'maxInitCodeSizeExceeded'
  | 'tipAboveFeeCap'
  | 'invalidTransaction'
  | 'blockGasLimitReached'
  | 'blockNumberOrder'
  | 'timestampOrder'
  | 'tooManyBlocks';

/** An eth_simulateV1 request geth refuses, with geth's text. */
export class SimulateError extends DomainError {
  override readonly name = 'SimulateError';
  constructor(
    readonly kind: SimulateErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** The kind of a message that cannot be included, by geth's inner text (`core/error.go`). */
export function invalidMessageKind(reason: string): SimulateErrorKind {
  if (reason.startsWith('nonce too high')) return 'nonceTooHigh';
  if (reason.startsWith('nonce too low')) return 'nonceTooLow';
  if (reason.startsWith('max fee per gas less than block base fee')) return 'baseFeeTooLow';
  if (reason.startsWith('insufficient funds')) return 'insufficientFunds';
  if (reason.startsWith('intrinsic gas too low')) return 'intrinsicGas';
  if (reason.startsWith('max initcode size exceeded')) return 'maxInitCodeSizeExceeded';
  if (reason.startsWith('max priority fee per gas higher than max fee per gas')) return 'tipAboveFeeCap';
  return 'invalidTransaction';
}
