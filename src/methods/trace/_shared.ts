import { z } from 'zod';
import { type BlockId, BlockNumberOrTag } from '../../codec/blockId.js';
import type { TraceService } from '../../tracing/replay.js';
import type { EthContext, TraceLimits } from '../context.js';

/**
 * Most traces in one trace_filter response: the 10,000 Infura documented for trace_filter. A
 * query that would return more is refused with -32005 (never a truncated list), so a client can
 * page with `after`/`count` or narrow the range.
 */
export const MAX_TRACE_FILTER_RESULTS = 10_000;

/**
 * Widest trace_filter block range (toBlock − fromBlock), or undefined for no cap, the default:
 * the address index makes wide ranges cheap when addresses are given, and without addresses the
 * scan stops at the result limit. reth caps at 100 (`--rpc.max-trace-filter-blocks`) because it
 * scans; operators who want that can set it.
 */
export const DEFAULT_MAX_TRACE_FILTER_BLOCKS: bigint | undefined = undefined;

/** The context's trace service. */
export function tracerOf(ctx: EthContext): TraceService {
  return ctx.tracer;
}

/** The context's trace limits. */
export function traceLimitsOf(ctx: EthContext): TraceLimits {
  return ctx.traceLimits;
}

/** A block number or one of OpenEthereum's tags: `earliest`, `latest`, `pending` (= latest). */
export type TraceBlockId = Exclude<BlockId, { kind: 'hash' }>;

/**
 * The block parameter of trace_block and trace_filter: a hex number or a tag OpenEthereum knows.
 * `safe`, `finalized`, hashes and EIP-1898 objects are invalid params (OE's `BlockNumber`).
 */
export const TraceBlockNumber = BlockNumberOrTag.transform((id, ctx): TraceBlockId => {
  if (id.kind === 'tag' && id.tag !== 'latest' && id.tag !== 'earliest' && id.tag !== 'pending') {
    ctx.addIssue({ code: 'custom', message: `unsupported block tag "${id.tag}" (use a number, "earliest", "latest" or "pending")` });
    return z.NEVER;
  }
  return id as TraceBlockId;
});

/** The number a trace block parameter names (possibly beyond the head); `pending` is the head. */
export async function traceBlockNumber(ctx: EthContext, id: TraceBlockId): Promise<bigint> {
  if (id.kind === 'number') return id.number;
  if (id.tag === 'earliest') return 0n;
  return (await ctx.chain.store.head())?.number ?? 0n;
}
