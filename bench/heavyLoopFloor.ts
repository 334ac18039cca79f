/**
 * The floor for the heavy loop (issue 31): the same bytecode run by plain @ethereumjs/evm in this
 * process — an EVM on an in-memory state holding only the contract's code, `runCall` with the
 * call's data — none of tracenode's work around it (no request, no worker hand-off, no state
 * from the datadir). Its output must equal tracenode's answer for the figure to count; the gas
 * it reports is the one both rates are computed from.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createEVM } from '@ethereumjs/evm';
import { bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util';

import { rpcResult } from './jsonRpc.js';

export interface HeavyLoopFloor {
  /** Execution gas of one run. */
  gasUsed: number;
  /** Median seconds of one run. */
  seconds: number;
  mgasPerS: number;
  /** Whether its output is tracenode's answer. */
  sameOutput: boolean;
}

export async function measureHeavyLoopFloor(o: { tracenodeUrl: string; to: string; data: string; runs: number }): Promise<HeavyLoopFloor> {
  const code = hexToBytes((await rpcResult(o.tracenodeUrl, 'eth_getCode', [o.to, 'latest'])) as `0x${string}`);
  const answer = (await rpcResult(o.tracenodeUrl, 'eth_call', [{ to: o.to, data: o.data }, 'latest'])) as string;
  const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Cancun }) });
  const to = createAddressFromString(o.to);
  await evm.stateManager.putCode(to, code);
  const times: number[] = [];
  let gasUsed = 0;
  let output = '';
  // One run unmeasured first, as tracenode's case has its warm-up.
  for (let i = -1; i < o.runs; i++) {
    const t0 = performance.now();
    const r = await evm.runCall({ to, data: hexToBytes(o.data as `0x${string}`), gasLimit: 1_000_000_000n });
    if (i >= 0) times.push((performance.now() - t0) / 1000);
    gasUsed = Number(r.execResult.executionGasUsed);
    output = bytesToHex(r.execResult.returnValue);
  }
  times.sort((a, b) => a - b);
  const seconds = times[Math.floor(times.length / 2)];
  return { gasUsed, seconds, mgasPerS: gasUsed / 1e6 / seconds, sameOutput: output === answer };
}
