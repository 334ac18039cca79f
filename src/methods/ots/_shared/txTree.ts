import { bigIntToQuantity, bytesToData } from '../../../codec/hex.js';
import { ServerError } from '../../../rpc/errors.js';
import type { CallFrame, TraceNode, TxCallTree } from '../../../tracing/callTree.js';
import type { EthContext, EthRequest } from '../../context.js';
import { evmRequest } from '../../evmRequest.js';

/**
 * The call tree of a mined transaction, from the trace service (the block replayed once in the
 * EVM workers, then cached). An unknown hash is erigon's error (`runTracer`: `transaction %#x not
 * found`, -32000).
 */
export async function txCallTree(ctx: EthContext, hash: Uint8Array, req: EthRequest | undefined): Promise<TxCallTree> {
  const location = await ctx.chain.store.txLocation(hash);
  const traces = location && (await ctx.tracer.tracesByHash(location.blockHash, evmRequest(req)));
  const tree = location && traces?.txs[location.index];
  if (!tree) throw new ServerError(`transaction ${bytesToData(hash)} not found`);
  return tree;
}

/** One entry of ots_traceTransaction (erigon `TraceEntry`). */
export interface OtsTraceEntry {
  type: string;
  depth: number;
  from: string;
  to: string;
  value: string | null;
  input: string;
  output: string;
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/**
 * The frames of a transaction as erigon's Otterscan transaction tracer lists them
 * (`otterscan_trace_transaction.go`): depth first, the transaction's own frame at depth 0, its
 * opcode upper-case; `value` null for STATICCALL and DELEGATECALL; precompiles left out (their
 * frames still count for depth); a SELFDESTRUCT one deeper than the entry listed last before it.
 */
export function otsTraceEntries(root: CallFrame): OtsTraceEntry[] {
  const out: OtsTraceEntry[] = [];
  const visit = (node: TraceNode, depth: number): void => {
    if (node.kind === 'selfdestruct') {
      const last = out[out.length - 1];
      out.push({
        type: 'SELFDESTRUCT',
        depth: (last?.depth ?? -1) + 1,
        from: bytesToData(node.address),
        to: bytesToData(node.beneficiary),
        value: bigIntToQuantity(node.balance),
        input: '0x',
        output: '0x',
      });
      return;
    }
    if (!node.precompile) {
      const noValue = node.kind === 'staticcall' || node.kind === 'delegatecall';
      out.push({
        type: node.kind.toUpperCase(),
        depth,
        from: bytesToData(node.from),
        to: node.to ? bytesToData(node.to) : ZERO_ADDRESS,
        value: noValue ? null : bigIntToQuantity(node.value),
        input: bytesToData(node.input),
        output: bytesToData(node.output),
      });
    }
    for (const child of node.children) visit(child, depth + 1);
  };
  visit(root, 0);
  return out;
}

/** One entry of ots_getInternalOperations (erigon `InternalOperation`): type 0 transfer, 1 self-destruct, 2 create, 3 create2. */
export interface OtsInternalOperation {
  type: 0 | 1 | 2 | 3;
  from: string;
  to: string;
  value: string;
}

/**
 * The value movements and creations inside a transaction, as erigon's operations tracer lists
 * them (`otterscan_trace_operations.go`): every frame below the transaction's own (depth > 0), in
 * execution order: a CALL carrying value (to precompiles too, and in frames that later failed), a
 * CREATE or CREATE2, a SELFDESTRUCT with the balance it moved.
 */
export function internalOperations(root: CallFrame): OtsInternalOperation[] {
  const out: OtsInternalOperation[] = [];
  const visit = (node: TraceNode): void => {
    if (node.kind === 'selfdestruct') {
      out.push({ type: 1, from: bytesToData(node.address), to: bytesToData(node.beneficiary), value: bigIntToQuantity(node.balance) });
      return;
    }
    const to = node.to ? bytesToData(node.to) : ZERO_ADDRESS;
    if (node.kind === 'call' && node.value > 0n) out.push({ type: 0, from: bytesToData(node.from), to, value: bigIntToQuantity(node.value) });
    if (node.kind === 'create' || node.kind === 'create2') {
      out.push({ type: node.kind === 'create' ? 2 : 3, from: bytesToData(node.from), to, value: bigIntToQuantity(node.value) });
    }
    for (const child of node.children) visit(child);
  };
  for (const child of root.children) visit(child);
  return out;
}

/**
 * The revert data of a transaction (erigon `ExecutionResult.Revert()`): the root frame's output
 * when it reverted, else empty (success, out of gas, any other failure).
 */
export function revertData(root: CallFrame): string {
  return root.error === 'reverted' ? bytesToData(root.output) : '0x';
}
