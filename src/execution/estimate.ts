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

/** What an attempt below the known threshold of a call would report (`sameRunAbove`). */
const OUT_OF_GAS: CallResult = Object.freeze({
  returnValue: new Uint8Array(),
  gasUsed: 0n,
  peakGasUsed: 0n,
  failure: Object.freeze({ kind: 'halt', message: 'out of gas', outOfGas: true }),
});

/**
 * The smallest gas limit up to `hi` with which `attempt` succeeds, within `errorRatio` of it
 * (`execution.estimateErrorRatio`, geth's 1.5 %) and never below it. A plain transfer to an account
 * without code first tries `transferGas` (geth: `params.TxGas`), and an attempt that throws there
 * is taken as a failure. Throws {@link ExecutionFailedError} when the call fails at `hi` for a
 * reason other than gas, and {@link CallError} when it runs out of gas at `hi`.
 *
 * `sameRunAbove(top)`, asked once the run at `hi` succeeded, says whether that run's path cannot
 * depend on its gas limit (no inner call, whose gas is a share of what is left; no GAS opcode; no
 * gas fee that the sender's balance would show). Such a call, given any limit, runs the same steps
 * until its gas runs out: it succeeds exactly when the limit is at least the most it ever consumed
 * (its peak), provided a run at the peak succeeds — which one more run checks (an SSTORE fails
 * with 2,300 gas or less left, so the peak is not always enough). Once it is checked, the rest of
 * the search asks that threshold instead of the EVM: the same steps, the same answer as geth's
 * search, two runs instead of four to six. When the check fails, the search goes on as geth's.
 */
export async function searchGasLimit(
  attempt: (gas: bigint) => Promise<CallResult>,
  hi: bigint,
  errorRatio: number,
  transferGas?: bigint,
  sameRunAbove?: (top: CallResult) => boolean,
): Promise<bigint> {
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
  const run = await thresholdOf(attempt, top, hi, sameRunAbove);
  // The run at `hi` used this much after refunds; the limit it needs is above it.
  let lo = top.gasUsed - 1n;
  // geth's optimistic guess: what the run consumed before refunds, with room for the 63/64 rule
  // (EIP-150) and a call stipend.
  const optimistic = ((top.peakGasUsed + CALL_STIPEND) * 64n) / 63n;
  if (optimistic < hi) {
    const r = await run(optimistic);
    if (r.failure !== undefined) lo = optimistic;
    else hi = optimistic;
  }
  while (lo + 1n < hi) {
    if (Number(hi - lo) / Number(hi) < errorRatio) break;
    let mid = lo + (hi - lo) / 2n;
    // geth: most calls need little more than they use, far below the cap, so bisect skewed low
    if (mid > lo * 2n) mid = lo * 2n;
    const r = await run(mid);
    if (r.failure !== undefined) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * What the search asks after the run at `hi`: the call's known threshold when `sameRunAbove` holds
 * and a run at the peak succeeds, otherwise `attempt` itself.
 */
async function thresholdOf(
  attempt: (gas: bigint) => Promise<CallResult>,
  top: CallResult,
  hi: bigint,
  sameRunAbove: ((top: CallResult) => boolean) | undefined,
): Promise<(gas: bigint) => Promise<CallResult>> {
  if (sameRunAbove === undefined || !sameRunAbove(top)) return attempt;
  const peak = top.peakGasUsed;
  if (peak < hi) {
    const check = await attempt(peak);
    if (check.failure !== undefined) return attempt;
  }
  return async (gas) => (gas >= peak ? top : OUT_OF_GAS);
}
