/**
 * Issue 31's targets: CPU time per answered request (the server process, all its threads, from
 * /proc), judged against the floors and anvil measured in the same run.
 */
import type { BenchReport, CaseResult, ServerName, Target } from './results.js';

const ISSUE = 31;

export function cpuTargets(rep: BenchReport): Target[] {
  const out: Target[] = [];
  const find = (name: string) => rep.cases.find((k) => k.name === name);
  const us = (k: CaseResult | undefined, s: ServerName, tr: 'http' | 'ws') => k?.servers[s]?.[tr]?.cpuUsPerRequest;
  const fmt = (x: number) => `${Math.round(x)} µs`;
  /** tracenode's CPU per request ≤ `max` × `vs`'s in case `name` over `tr`. */
  const against = (name: string, tr: 'http' | 'ws', vs: ServerName, max: number, target: string) => {
    const k = find(name);
    const a = us(k, 'tracenode', tr);
    const b = us(k, vs, tr);
    if (a === undefined || b === undefined || b <= 0) {
      out.push({ issue: ISSUE, target, measured: 'not run', met: null });
      return;
    }
    out.push({ issue: ISSUE, target, measured: `${(a / b).toFixed(2)}× (${fmt(a)} vs ${fmt(b)})`, met: a <= max * b });
  };
  for (const name of ['eth_blockNumber', 'eth_getStorageAt latest (every control on)']) {
    against(name, 'http', 'nodeFloor', 1.3, `${name}: CPU per request ≤ 1.3× the bare node:http echo's, HTTP keep-alive`);
    against(name, 'ws', 'floor', 1.2, `${name}: CPU per request ≤ 1.2× the echo's, WebSocket`);
  }
  const view = find('eth_call view (balanceOf)');
  const viewUs = us(view, 'tracenode', 'http');
  out.push(
    viewUs === undefined
      ? { issue: ISSUE, target: 'eth_call view: ≤ 250 µs of CPU per call', measured: 'not run', met: null }
      : { issue: ISSUE, target: 'eth_call view: ≤ 250 µs of CPU per call (all threads)', measured: fmt(viewUs), met: viewUs <= 250 },
  );
  const p50 = view?.servers.tracenode?.c1?.p50;
  const anvilP50 = view?.servers.anvil?.c1?.p50;
  out.push(
    p50 === undefined || anvilP50 === undefined
      ? { issue: ISSUE, target: "eth_call view: p50 at one connection ≤ 2× anvil's", measured: 'not run', met: null }
      : {
          issue: ISSUE,
          target: "eth_call view: p50 at one connection ≤ 2× anvil's",
          measured: `${(p50 / anvilP50).toFixed(2)}× (${p50} vs ${anvilP50} ms)`,
          met: p50 <= 2 * anvilP50,
        },
  );
  against('trace_transaction (heaviest block)', 'http', 'anvil', 1, "trace_transaction: CPU per request ≤ anvil's");
  against('trace_filter (rare address, whole chain)', 'http', 'anvil', 1, "trace_filter: CPU per request ≤ anvil's");
  against('eth_createAccessList (ERC-20 transfer)', 'http', 'anvil', 3, "eth_createAccessList of an ERC-20 transfer: CPU per request ≤ 3× anvil's");
  against('eth_estimateGas (ERC-20 transfer)', 'http', 'anvil', 3, "eth_estimateGas of an ERC-20 transfer: CPU per request ≤ 3× anvil's");
  against('eth_simulateV1 (ERC-20 transfer)', 'http', 'anvil', 3, "eth_simulateV1 of an ERC-20 transfer: CPU per request ≤ 3× anvil's");
  // What the design card's EVM alone costs for that transfer, against the 3× budget (information).
  const transfer = rep.transferFloor;
  const anvilList = us(find('eth_createAccessList (ERC-20 transfer)'), 'anvil', 'http');
  const floorTarget =
    "(the floor under the three: the transfer run once by plain @ethereumjs/evm, no request around it, against 3× anvil's eth_createAccessList: information)";
  if (transfer === undefined || anvilList === undefined || !transfer.sameOutput) {
    out.push({ issue: ISSUE, target: floorTarget, measured: transfer && !transfer.sameOutput ? 'the plain EVM answered otherwise' : 'not run', met: null });
  } else {
    out.push({
      issue: ISSUE,
      target: floorTarget,
      measured: `one run ${fmt(transfer.cpuUsPerRun)} of CPU = ${(transfer.cpuUsPerRun / (3 * anvilList)).toFixed(2)}× the budget of ${fmt(3 * anvilList)} (eth_createAccessList runs it twice, eth_estimateGas ~5 times)`,
      met: null,
    });
  }
  const floor = rep.heavyLoopFloor;
  const loopP50 = find('eth_call heavy loop')?.servers.tracenode?.c1?.p50;
  const target = 'heavy loop: tracenode within 1.2× of plain @ethereumjs/evm running the same bytecode (Mgas/s, one connection)';
  if (floor === undefined || loopP50 === undefined || !floor.sameOutput) {
    out.push({ issue: ISSUE, target, measured: floor && !floor.sameOutput ? 'the plain EVM answered otherwise' : 'not run', met: null });
  } else {
    const ours = floor.gasUsed / 1e6 / (loopP50 / 1000);
    out.push({
      issue: ISSUE,
      target,
      measured: `${(floor.mgasPerS / ours).toFixed(2)}× (${ours.toFixed(1)} vs ${floor.mgasPerS.toFixed(1)} Mgas/s, ${floor.gasUsed} gas)`,
      met: floor.mgasPerS <= 1.2 * ours,
    });
  }
  return out;
}
