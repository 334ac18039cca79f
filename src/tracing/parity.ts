import { bigIntToQuantity, bytesToData } from '../codec/hex.js';
import type { CallFrame, FrameError, SelfdestructNode, TraceNode, TxCallTree } from './callTree.js';
import type { Reward } from './rewards.js';

/**
 * Parity / OpenEthereum trace rendering (docs/methods.md#traces): turns neutral call trees
 * ({@link ./callTree.ts}) and rewards into the localized traces of `trace_transaction`,
 * `trace_block` and `trace_filter`. It never touches the EVM; the same tree can be rendered in
 * another style by another module.
 *
 * Choices (docs/methods.md#traces):
 * - depth-first pre-order; `traceAddress` is the path of child indexes from the root;
 * - a SELFDESTRUCT is a `suicide` child of the frame that executed it, after that frame's calls;
 * - zero-value calls to precompiles are omitted (with no index and not counted in `subtraces`),
 *   as erigon (`includePrecompiles` false) and revm-inspectors (`exclude_precompile_calls`) do;
 *   the transaction's own root frame is always kept;
 * - a failed frame carries OpenEthereum's error text; `result` is kept (gasUsed + output/code)
 *   only for `Reverted`, as erigon and reth do, and is `null` for other failures;
 * - keys in the order reth and erigon print them.
 */

/** Where a trace sits: its block (and transaction, `null` for rewards). */
export interface TraceLocation {
  blockNumber: bigint;
  blockHash: Uint8Array;
}

/** `action` of a `call` trace. */
export interface RpcCallAction {
  from: string;
  callType: 'call' | 'callcode' | 'delegatecall' | 'staticcall';
  gas: string;
  input: string;
  to: string;
  value: string;
}
/** `action` of a `create` trace; `creationMethod` as reth and newer erigon print it. */
export interface RpcCreateAction {
  from: string;
  gas: string;
  init: string;
  value: string;
  creationMethod: 'create' | 'create2';
}
/** `action` of a `suicide` trace. */
export interface RpcSuicideAction {
  address: string;
  balance: string;
  refundAddress: string;
}
/** `action` of a `reward` trace. */
export interface RpcRewardAction {
  author: string;
  rewardType: 'block' | 'uncle';
  value: string;
}
/** `result`: call output, creation output, or null (failed other than by revert; suicide; reward). */
export type RpcTraceResult = { gasUsed: string; output: string } | { address: string; code: string; gasUsed: string } | null;

/** One localized Parity trace, as it goes on the wire. */
export interface RpcTrace {
  action: RpcCallAction | RpcCreateAction | RpcSuicideAction | RpcRewardAction;
  blockHash: string;
  blockNumber: number;
  error?: string;
  result: RpcTraceResult;
  subtraces: number;
  traceAddress: number[];
  transactionHash: string | null;
  transactionPosition: number | null;
  type: 'call' | 'create' | 'suicide' | 'reward';
}

/** OpenEthereum's texts (`trace/types/error.rs`), with reth's for what OpenEthereum never had. */
const ERROR_TEXT: Record<FrameError, string> = {
  reverted: 'Reverted',
  outOfGas: 'Out of gas',
  badInstruction: 'Bad instruction',
  badJumpDestination: 'Bad jump destination',
  stackUnderflow: 'Stack underflow',
  stackOverflow: 'Out of stack',
  staticStateChange: 'Mutable Call In Static Context',
  outOfBounds: 'Out of bounds',
  precompileFailed: 'Built-in failed',
  // OpenEthereum's executive reports an address collision and an over-size deployed code as out
  // of gas; EIP-3860 says an over-size initcode fails "as if out of gas".
  createCollision: 'Out of gas',
  codeSizeLimit: 'Out of gas',
  initcodeSizeLimit: 'Out of gas',
  invalidCode: 'Invalid code',
  insufficientBalance: 'Insufficient balance for transfer',
  internal: 'Internal error',
};

/** The Parity error text of a neutral error. */
export function parityErrorText(error: FrameError): string {
  return ERROR_TEXT[error];
}

/** A trace in flattened order, before rendering: its node, position and direct-child count. */
export interface FlatTrace {
  node: TraceNode;
  traceAddress: number[];
  subtraces: number;
}

/**
 * Whether a child appears in Parity output: zero-value precompile calls do not. DELEGATECALL and
 * STATICCALL transfer nothing, whatever value they report.
 */
export function isVisibleChild(node: TraceNode): boolean {
  if (node.kind === 'selfdestruct' || !node.precompile) return true;
  const transferred = node.kind === 'call' || node.kind === 'callcode' ? node.value : 0n;
  return transferred !== 0n;
}

/** A transaction's traces in depth-first pre-order, with `traceAddress` and `subtraces`. */
export function flattenTx(root: CallFrame): FlatTrace[] {
  const out: FlatTrace[] = [];
  const visit = (node: TraceNode, traceAddress: number[]): void => {
    if (node.kind === 'selfdestruct') {
      out.push({ node, traceAddress, subtraces: 0 });
      return;
    }
    const children = node.children.filter(isVisibleChild);
    out.push({ node, traceAddress, subtraces: children.length });
    for (const [i, child] of children.entries()) visit(child, [...traceAddress, i]);
  };
  visit(root, []);
  return out;
}

/**
 * The addresses trace_filter matches a trace against (docs/methods.md#trace_filter): call from/to; create
 * from and the new contract (only when the result shows it, i.e. not for a failed creation other
 * than a revert); suicide contract/beneficiary; reward: only the author, on the "to" side.
 * The address index records exactly these, so that index and filter cannot disagree.
 */
export interface TraceSides {
  from: Uint8Array | undefined;
  to: Uint8Array | undefined;
}

/** The filter sides of a transaction trace node. */
export function nodeSides(node: TraceNode): TraceSides {
  if (node.kind === 'selfdestruct') return { from: node.address, to: node.beneficiary };
  if (node.kind === 'create' || node.kind === 'create2') return { from: node.from, to: hasResult(node) ? node.to : undefined };
  return { from: node.from, to: node.to };
}

/** The filter sides of a reward: only the author, on the "to" side (docs/methods.md#trace_filter decision). */
export function rewardSides(reward: Reward): TraceSides {
  return { from: undefined, to: reward.author };
}

function hasResult(frame: CallFrame): boolean {
  return frame.error === undefined || frame.error === 'reverted';
}

const ZERO_ADDRESS = new Uint8Array(20);

/** Renders one flattened trace of transaction `tx`. */
export function renderFlatTrace(flat: FlatTrace, tx: Pick<TxCallTree, 'txHash' | 'txIndex'>, where: TraceLocation): RpcTrace {
  const { node } = flat;
  const envelope = {
    blockHash: bytesToData(where.blockHash),
    blockNumber: Number(where.blockNumber),
    subtraces: flat.subtraces,
    traceAddress: flat.traceAddress,
    transactionHash: bytesToData(tx.txHash),
    transactionPosition: tx.txIndex,
  };
  if (node.kind === 'selfdestruct') return renderSelfdestruct(node, envelope);
  const isCreate = node.kind === 'create' || node.kind === 'create2';
  const action: RpcCallAction | RpcCreateAction = isCreate
    ? {
        from: bytesToData(node.from),
        gas: bigIntToQuantity(node.gas),
        init: bytesToData(node.input),
        value: bigIntToQuantity(node.value),
        creationMethod: node.kind as 'create' | 'create2',
      }
    : {
        from: bytesToData(node.from),
        callType: node.kind as RpcCallAction['callType'],
        gas: bigIntToQuantity(node.gas),
        input: bytesToData(node.input),
        to: bytesToData(node.to ?? ZERO_ADDRESS),
        value: bigIntToQuantity(node.value),
      };
  let result: RpcTraceResult = null;
  if (hasResult(node)) {
    result = isCreate
      ? { address: bytesToData(node.to ?? ZERO_ADDRESS), code: bytesToData(node.output), gasUsed: bigIntToQuantity(node.gasUsed) }
      : { gasUsed: bigIntToQuantity(node.gasUsed), output: bytesToData(node.output) };
  }
  const trace: RpcTrace = {
    action,
    blockHash: envelope.blockHash,
    blockNumber: envelope.blockNumber,
    result,
    subtraces: envelope.subtraces,
    traceAddress: envelope.traceAddress,
    transactionHash: envelope.transactionHash,
    transactionPosition: envelope.transactionPosition,
    type: isCreate ? 'create' : 'call',
  };
  if (node.error !== undefined) return withError(trace, ERROR_TEXT[node.error]);
  return trace;
}

function renderSelfdestruct(node: SelfdestructNode, envelope: Omit<RpcTrace, 'action' | 'result' | 'type' | 'error'>): RpcTrace {
  return {
    action: { address: bytesToData(node.address), balance: bigIntToQuantity(node.balance), refundAddress: bytesToData(node.beneficiary) },
    blockHash: envelope.blockHash,
    blockNumber: envelope.blockNumber,
    result: null,
    subtraces: 0,
    traceAddress: envelope.traceAddress,
    transactionHash: envelope.transactionHash,
    transactionPosition: envelope.transactionPosition,
    type: 'suicide',
  };
}

// Inserts `error` where reth and erigon print it: after blockNumber, before result.
function withError(trace: RpcTrace, error: string): RpcTrace {
  const { action, blockHash, blockNumber, ...rest } = trace;
  return { action, blockHash, blockNumber, error, ...rest };
}

/** Renders a reward trace (`traceAddress` [], no transaction). */
export function renderReward(reward: Reward, where: TraceLocation): RpcTrace {
  return {
    action: { author: bytesToData(reward.author), rewardType: reward.kind, value: bigIntToQuantity(reward.value) },
    blockHash: bytesToData(where.blockHash),
    blockNumber: Number(where.blockNumber),
    result: null,
    subtraces: 0,
    traceAddress: [],
    transactionHash: null,
    transactionPosition: null,
    type: 'reward',
  };
}

/** All traces of one transaction, in execution order. */
export function renderTx(tree: TxCallTree, where: TraceLocation): RpcTrace[] {
  return flattenTx(tree.root).map((flat) => renderFlatTrace(flat, tree, where));
}

/** All traces of a block: every transaction's, then the rewards. */
export function renderBlock(txs: readonly TxCallTree[], rewards: readonly Reward[], where: TraceLocation): RpcTrace[] {
  const out: RpcTrace[] = [];
  for (const tree of txs) for (const flat of flattenTx(tree.root)) out.push(renderFlatTrace(flat, tree, where));
  for (const reward of rewards) out.push(renderReward(reward, where));
  return out;
}

/** One trace of a block before rendering, with the addresses trace_filter matches. */
export interface BlockTraceEntry extends TraceSides {
  render(): RpcTrace;
}

/** A block's traces in output order, each with its filter sides and a lazy renderer. */
export function blockTraceEntries(txs: readonly TxCallTree[], rewards: readonly Reward[], where: TraceLocation): BlockTraceEntry[] {
  const out: BlockTraceEntry[] = [];
  for (const tree of txs) {
    for (const flat of flattenTx(tree.root)) {
      const sides = nodeSides(flat.node);
      out.push({ from: sides.from, to: sides.to, render: () => renderFlatTrace(flat, tree, where) });
    }
  }
  for (const reward of rewards) out.push({ ...rewardSides(reward), render: () => renderReward(reward, where) });
  return out;
}
