/**
 * The floor under eth_createAccessList, eth_estimateGas and eth_simulateV1 of the bench's ERC-20
 * transfer (issue 31): the transfer run once by plain @ethereumjs/evm in this process, on an in-memory
 * state holding only what it reads (the token's code and the slots tracenode's access list names,
 * read from tracenode at latest) — no request, no worker, no database, no access list tracer, no
 * block. It is what the design card's EVM costs before tracenode does anything: geth's
 * eth_createAccessList runs the call twice (until its list is stable), its eth_estimateGas about
 * five times (the search), a one-block simulation once.
 * Its return value must equal tracenode's eth_call answer for the figure to count.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createEVM } from '@ethereumjs/evm';
import { SimpleStateManager } from '@ethereumjs/statemanager';
import { Account, bytesToHex, createAddressFromString, hexToBytes, setLengthLeft } from '@ethereumjs/util';

import { rpcResult } from './jsonRpc.js';

export interface TransferFloor {
  /** CPU µs (this process, user + system) of one run, over `runs` runs. */
  cpuUsPerRun: number;
  /** Wall µs of one run. */
  wallUsPerRun: number;
  runs: number;
  gasUsed: number;
  /** Whether its output is tracenode's eth_call answer. */
  sameOutput: boolean;
}

type Hex = `0x${string}`;

export async function measureTransferFloor(o: {
  tracenodeUrl: string;
  call: { from: string; to: string; data: string };
  runs: number;
}): Promise<TransferFloor> {
  const { call } = o;
  const answer = (await rpcResult(o.tracenodeUrl, 'eth_call', [call, 'latest'])) as string;
  const list = (await rpcResult(o.tracenodeUrl, 'eth_createAccessList', [call, 'latest'])) as {
    accessList: Array<{ address: string; storageKeys: string[] }>;
  };
  const state = new SimpleStateManager();
  const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }), stateManager: state });
  const from = createAddressFromString(call.from);
  const to = createAddressFromString(call.to);
  await state.putAccount(from, new Account(0n, 10n ** 18n));
  await state.putAccount(to, new Account());
  await state.putCode(to, hexToBytes((await rpcResult(o.tracenodeUrl, 'eth_getCode', [call.to, 'latest'])) as Hex));
  for (const entry of list.accessList) {
    const address = createAddressFromString(entry.address);
    if ((await state.getAccount(address)) === undefined) await state.putAccount(address, new Account());
    for (const key of entry.storageKeys) {
      const value = hexToBytes((await rpcResult(o.tracenodeUrl, 'eth_getStorageAt', [entry.address, key, 'latest'])) as Hex);
      await state.putStorage(address, setLengthLeft(hexToBytes(key as Hex), 32), value);
    }
  }
  const data = hexToBytes(call.data as Hex);
  // Each run starts from the same state: its writes are reverted.
  const run = async () => {
    await state.checkpoint();
    const r = await evm.runCall({ caller: from, origin: from, to, data, gasLimit: 1_000_000n });
    await state.revert();
    return r;
  };
  const first = await run();
  for (let i = 0; i < Math.min(200, o.runs); i++) await run(); // warm-up
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < o.runs; i++) await run();
  const wall = (performance.now() - t0) * 1000;
  const cpu = process.cpuUsage(c0);
  return {
    cpuUsPerRun: (cpu.user + cpu.system) / o.runs,
    wallUsPerRun: wall / o.runs,
    runs: o.runs,
    gasUsed: Number(first.execResult.executionGasUsed),
    sameOutput: first.execResult.exceptionError === undefined && bytesToHex(first.execResult.returnValue) === answer,
  };
}
