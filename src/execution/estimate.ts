import { CallError, type CallResult, ExecutionFailedError } from './callResult.js';

/**
 * eth_estimateGas's search for the smallest gas limit a call succeeds with, as geth's
 * ethereum/go-ethereum `eth/gasestimator` Estimate does it: written over an `attempt(gas)` that
 * runs the call with that limit, so that the search itself is independent of the EVM.
 */

/** Gas a value-bearing CALL adds for free; geth's estimator pads its first guess with it. */
const CALL_STIPEND = 2300n;

/**
 * The result an attempt reports for a gas limit below the message's intrinsic gas: a failure that
 * more gas may fix, as geth's estimator treats `ErrIntrinsicGas`.
 */
export const INTRINSIC_GAS_TOO_LOW: CallResult = Object.freeze({
  returnValue: new Uint8Array(),
  gasUsed: 0n,
  peakGasUsed: 0n,
  failure: Object.freeze({ kind: 'halt', message: 'intrinsic gas too low', outOfGas: true }),
});

/**
 * The smallest gas limit up to `hi` with which `attempt` succeeds, within `errorRatio` of it
 * (`execution.estimateErrorRatio`, geth's 1.5 %) and never below it. A plain transfer to an account
 * without code first tries `transferGas` (geth: `params.TxGas`), and an attempt that throws there
 * is taken as a failure. Throws {@link ExecutionFailedError} when the call fails at `hi` for a
 * reason other than gas, and {@link CallError} when it runs out of gas at `hi`.
 */
export async function searchGasLimit(attempt: (gas: bigint) => Promise<CallResult>, hi: bigint, errorRatio: number, transferGas?: bigint): Promise<bigint> {
  if (transferGas !== undefined) {
    let r: CallResult | undefined;
    try {
      r = await attempt(transferGas);
    } catch {
      r = undefined;
    }
    if (r !== undefined && r.failure === undefined) return transferGas;
  }

  const top = await attempt(hi);
  if (top.failure !== undefined) {
    if (!(top.failure.kind === 'halt' && top.failure.outOfGas)) throw new ExecutionFailedError(top);
    throw new CallError(`gas required exceeds allowance (${hi})`);
  }
  // The run at `hi` used this much after refunds; the limit it needs is above it.
  let lo = top.gasUsed - 1n;
  // geth's optimistic guess: what the run consumed before refunds, with room for the 63/64 rule
  // (EIP-150) and a call stipend.
  const optimistic = ((top.peakGasUsed + CALL_STIPEND) * 64n) / 63n;
  if (optimistic < hi) {
    const r = await attempt(optimistic);
    if (r.failure !== undefined) lo = optimistic;
    else hi = optimistic;
  }
  while (lo + 1n < hi) {
    if (Number(hi - lo) / Number(hi) < errorRatio) break;
    let mid = lo + (hi - lo) / 2n;
    // geth: most calls need little more than they use, far below the cap, so bisect skewed low
    if (mid > lo * 2n) mid = lo * 2n;
    const r = await attempt(mid);
    if (r.failure !== undefined) lo = mid;
    else hi = mid;
  }
  return hi;
}
