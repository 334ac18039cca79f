import { bigIntToQuantity, bytesToData } from '../codec/hex.js';
import type { CallFrame } from './callTree.js';
import { flattenTx, type RpcTrace, renderFlatTrace } from './parity.js';
import type { Delta, StateDiff } from './stateDiff.js';

/**
 * The answers of Parity's ad-hoc tracing (trace_call, trace_callMany, trace_rawTransaction,
 * trace_replayTransaction, trace_replayBlockTransactions) as OpenEthereum and reth put them on the
 * wire: `{ output, stateDiff, trace, vmTrace }` (docs/methods.md#ad-hoc-tracing).
 *
 * - `trace`: the frames trace_transaction renders ({@link ./parity.ts}), without the block and
 *   transaction fields; `[]` when not asked (OpenEthereum and reth: a list, never null);
 * - `stateDiff`: {@link ./stateDiff.ts} rendered with `"="`, `{"+": v}`, `{"-": v}` and
 *   `{"*": {"from", "to"}}`; balances and nonces as quantities, code as data, storage keys and
 *   values as 32-byte words; null when not asked;
 * - `vmTrace`: never (refused by the methods), so null;
 * - `output`: the root frame's return data (a creation's deployed code; the revert data of a
 *   revert; `0x` after any other failure, as revm's execution result has no output then).
 */

/** The trace types a request names. */
export interface TraceTypes {
  trace: boolean;
  stateDiff: boolean;
}

/** One frame of an ad-hoc trace: a trace_transaction trace without its location. */
export type RpcUnlocalizedTrace = Pick<RpcTrace, 'type' | 'action' | 'error' | 'result' | 'subtraces' | 'traceAddress'>;

type RpcDelta<T> = '=' | { '+': T } | { '-': T } | { '*': { from: T; to: T } };

/** One account of a rendered state diff (keys in reth's order). */
export interface RpcAccountDiff {
  balance: RpcDelta<string>;
  code: RpcDelta<string>;
  nonce: RpcDelta<string>;
  storage: Record<string, RpcDelta<string>>;
}

/** The result of one traced transaction or call. */
export interface RpcTraceResults {
  output: string;
  stateDiff: Record<string, RpcAccountDiff> | null;
  trace: RpcUnlocalizedTrace[];
  vmTrace: null;
}

const NOWHERE = { blockNumber: 0n, blockHash: new Uint8Array(32) };
const NO_TX = { txHash: new Uint8Array(32), txIndex: 0 };

/** A transaction's traces without block and transaction fields, in trace_transaction's order. */
export function renderUnlocalized(root: CallFrame): RpcUnlocalizedTrace[] {
  return flattenTx(root).map((flat) => {
    const t = renderFlatTrace(flat, NO_TX, NOWHERE);
    return {
      type: t.type,
      action: t.action,
      ...(t.error === undefined ? {} : { error: t.error }),
      result: t.result,
      subtraces: t.subtraces,
      traceAddress: t.traceAddress,
    };
  });
}

function renderDelta<T>(d: Delta<T>, show: (v: T) => string): RpcDelta<string> {
  switch (d.kind) {
    case 'same':
      return '=';
    case 'added':
      return { '+': show(d.to) };
    case 'removed':
      return { '-': show(d.from) };
    case 'changed':
      return { '*': { from: show(d.from), to: show(d.to) } };
  }
}

/** A state diff as OpenEthereum and reth render it. */
export function renderStateDiff(diff: StateDiff): Record<string, RpcAccountDiff> {
  const out: Record<string, RpcAccountDiff> = {};
  for (const account of diff) {
    const storage: Record<string, RpcDelta<string>> = {};
    for (const { key, delta } of account.storage) storage[bytesToData(key)] = renderDelta(delta, bytesToData);
    out[bytesToData(account.address)] = {
      balance: renderDelta(account.balance, bigIntToQuantity),
      code: renderDelta(account.code, bytesToData),
      nonce: renderDelta(account.nonce, bigIntToQuantity),
      storage,
    };
  }
  return out;
}

/** The output of a run: its root's return data, except after a failure other than a revert. */
export function runOutput(root: CallFrame | undefined): Uint8Array {
  if (!root || (root.error !== undefined && root.error !== 'reverted')) return new Uint8Array(0);
  return root.output;
}

/** Renders one run's results for the trace types asked. */
export function renderTraceResults(root: CallFrame | undefined, diff: StateDiff | undefined, types: TraceTypes): RpcTraceResults {
  return {
    output: bytesToData(runOutput(root)),
    stateDiff: types.stateDiff && diff ? renderStateDiff(diff) : null,
    trace: types.trace && root ? renderUnlocalized(root) : [],
    vmTrace: null,
  };
}
