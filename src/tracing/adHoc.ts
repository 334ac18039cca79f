import { Block, type BlockHeader } from '@ethereumjs/block';
import type { EVM } from '@ethereumjs/evm';
import type { DB } from '@ethereumjs/util';
import type { EthereumChain } from '../chain/open.js';
import type { CallRequest } from '../execution/callArgs.js';
import type { CallEngine, CallOverrides } from '../execution/callEngine.js';
import type { EvmFlavour } from '../execution/evmPool.js';
import type { CallFrame, TxCallTree } from './callTree.js';
import { attachFrameRecorder, type FrameRecorder } from './recorder.js';
import { replayBlock } from './replay.js';
import { type AccountChange, createdAddresses, recordStateChanges, type StateChangeRecorder, type StateDiff, stateDiff } from './stateDiff.js';

/**
 * Ad-hoc Parity tracing, the domain half (the methods render with {@link ./parityResults.ts}):
 *
 * - {@link traceCalls}: calls run in sequence on a block's state by the call engine (its gas cap,
 *   overrides and deadline), each settled as a transaction, with the frame recorder on the EVM and
 *   the state-change recorder on the state (trace_call, trace_callMany, trace_rawTransaction);
 * - {@link replayWithDiffs}: a stored block replayed as trace_transaction replays it, with the
 *   state-change recorder on the transactions asked for (trace_replayTransaction,
 *   trace_replayBlockTransactions with `stateDiff`).
 */

/** One traced call: its call tree and, when asked, its state diff. */
export interface TracedRun {
  root: CallFrame | undefined;
  diff: StateDiff | undefined;
}

/** One call of a sequence and whether its state diff is wanted. */
export interface TraceCallItem {
  request: CallRequest;
  stateDiff: boolean;
}

const recorders = new WeakMap<EVM, FrameRecorder>();

/** The call engine's EVMs that carry a frame recorder. */
const PARITY_EVMS: EvmFlavour = {
  key: 'parity',
  setup: (evm) => recorders.set(evm, attachFrameRecorder(evm)),
};

/** Runs and traces calls in sequence at `header` (each on the state the previous left). */
export async function traceCalls(engine: CallEngine, header: BlockHeader, calls: readonly TraceCallItem[], overrides: CallOverrides): Promise<TracedRun[]> {
  let changes: StateChangeRecorder | undefined;
  const out: TracedRun[] = [];
  await engine.runSequence(
    header,
    calls.map((c) => c.request),
    overrides,
    {
      flavour: PARITY_EVMS,
      state: (state) => {
        if (calls.some((c) => c.stateDiff)) changes = recordStateChanges(state);
      },
      before: (evm) => {
        recorders.get(evm)?.begin();
        changes?.begin();
      },
      after: async (evm, _result, index) => {
        const root = recorders.get(evm)?.end();
        const accessed = await changes?.finish();
        out.push({ root, diff: calls[index]?.stateDiff && accessed ? stateDiff(accessed, createdAddresses(root)) : undefined });
      },
    },
  );
  return out;
}

/** One replayed transaction: its call tree and, when asked, its state diff. */
export interface ReplayedTx {
  tree: TxCallTree;
  diff: StateDiff | undefined;
}

/**
 * Replays `block` (as trace_transaction does) and records the state diff of transaction `only`,
 * or of every transaction when `only` is undefined. With `only`, the transactions after it are
 * not run: the block is replayed up to it (the header is the same, so is the context).
 */
export async function replayWithDiffs(chain: EthereumChain, stateDb: DB<string, string | Uint8Array>, block: Block, only?: number): Promise<ReplayedTx[]> {
  const changes: Array<AccountChange[] | undefined> = [];
  let failure: { err: unknown } | undefined;
  const upTo = only === undefined ? block : new Block(block.header, block.transactions.slice(0, only + 1), [], undefined, {});
  const trees = await replayBlock(chain, stateDb, upTo, (vm) => {
    const recorder = recordStateChanges(vm.stateManager);
    let index = 0;
    let watching = false;
    vm.events.on('beforeTx', () => {
      watching = only === undefined || index === only;
      if (watching) recorder.begin();
    });
    // Two parameters: the VM awaits the listener (the state is read before the next transaction).
    vm.events.on('afterTx', (_event: unknown, resolve?: (result?: unknown) => void) => {
      const i = index++;
      if (!watching) return resolve?.();
      recorder.finish().then(
        (accessed) => {
          changes[i] = accessed;
          resolve?.();
        },
        (err: unknown) => {
          failure ??= { err };
          resolve?.();
        },
      );
    });
  });
  if (failure) throw failure.err;
  return trees.map((tree, i) => {
    const accessed = changes[i];
    return { tree, diff: accessed ? stateDiff(accessed, createdAddresses(tree.root)) : undefined };
  });
}
