import { z } from 'zod';
import { checkArchiveStart } from '../../chain/archiveStart.js';
import { type BlockId, BlockNumberOrTag } from '../../codec/blockId.js';
import type { TraceService } from '../../tracing/replay.js';
import type { EthContext, EthRequest } from '../context.js';
import { headOf } from '../eth/_shared/head.js';

/** The context's trace service. */
export function tracerOf(ctx: EthContext): TraceService {
  return ctx.tracer;
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

/**
 * The number a trace block parameter names (possibly beyond the head); `pending` is the head. In
 * an archive that starts at block N, `earliest` is N and a number below it is refused as history it
 * does not keep (trace_filter's range starts at N, as geth's eth_getLogs does).
 */
export async function traceBlockNumber(ctx: EthContext, id: TraceBlockId, req?: EthRequest): Promise<bigint> {
  if (id.kind === 'number') {
    checkArchiveStart(ctx.chain.start, id.number, 'history');
    return id.number;
  }
  if (id.tag === 'earliest') return ctx.chain.start?.number ?? 0n;
  return (await headOf(ctx, req))?.number ?? 0n;
}
