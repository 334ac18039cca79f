import { bytesToHex } from '@ethereumjs/util';
import { z } from 'zod';
import { cutString, quoteValue } from '../../codec/quote.js';
import { Address, jsonType } from '../../codec/schemas.js';
import { InvalidParamsError, LimitExceededError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import { type AddressMode, indexedBlocks, readIndexHead } from '../../tracing/addressIndex.js';
import { type BlockTraceEntry, blockTraceEntries, type RpcTrace } from '../../tracing/parity.js';
import type { BlockTraces } from '../../tracing/replay.js';
import type { EthContext, EthRequest } from '../context.js';
import { headOf, throwIfAborted } from '../eth/_shared/head.js';
import { evmRequest } from '../evmRequest.js';
import { REPLAY } from '../raises.js';
import { type TraceBlockId, TraceBlockNumber, traceBlockNumber, tracerOf } from './_shared.js';

/** The decoded trace_filter object. */
export interface TraceFilterParams {
  fromBlock: TraceBlockId | undefined;
  toBlock: TraceBlockId | undefined;
  fromAddress: Uint8Array[];
  toAddress: Uint8Array[];
  mode: AddressMode;
  after: number | undefined;
  count: number | undefined;
}

/** The trace_filter result: matching traces in chain order. */
export type TraceFilterResult = RpcTrace[];

const FILTER_KEYS = ['fromBlock', 'toBlock', 'fromAddress', 'toAddress', 'mode', 'after', 'count'] as const;

/**
 * Blocks whose traces are computed at once while scanning: the next block replays while the
 * current one is matched. Matches the replay concurrency limit, which bounds it anyway.
 */
const FILTER_PREFETCH_BLOCKS = 2;

/**
 * The filter object. Unknown keys are refused (OpenEthereum and reth `deny_unknown_fields`);
 * `null` means absent; addresses are 20-byte hex; `after`/`count` are JSON integers ≥ 0.
 */
export const TraceFilterObject = z.unknown().transform((value, ctx): TraceFilterParams => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    ctx.addIssue({ code: 'custom', message: `json: cannot unmarshal ${jsonType(value)} into Go value of type TraceFilter` });
    return z.NEVER;
  }
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!(FILTER_KEYS as readonly string[]).includes(key)) {
      ctx.addIssue({ code: 'custom', message: `unknown field \`${cutString(key)}\`, expected one of ${FILTER_KEYS.map((k) => `\`${k}\``).join(', ')}` });
      return z.NEVER;
    }
  }
  const present = (key: string): boolean => o[key] !== undefined && o[key] !== null;
  const fail = (path: (string | number)[], message: string): never => {
    ctx.addIssue({ code: 'custom', path, message });
    return z.NEVER as never;
  };

  const block = (key: 'fromBlock' | 'toBlock'): TraceBlockId | undefined => {
    if (!present(key)) return undefined;
    const parsed = TraceBlockNumber.safeParse(o[key]);
    return parsed.success ? parsed.data : fail([key], parsed.error.issues[0]?.message ?? 'invalid block');
  };
  const addresses = (key: 'fromAddress' | 'toAddress'): Uint8Array[] => {
    if (!present(key)) return [];
    const list = o[key];
    if (!Array.isArray(list)) return fail([key], `json: cannot unmarshal ${jsonType(list)} into Go value of type []common.Address`);
    return list.map((item, i) => {
      const parsed = Address.safeParse(item);
      return parsed.success ? parsed.data : fail([key, i], parsed.error.issues[0]?.message ?? 'invalid address');
    });
  };
  const integer = (key: 'after' | 'count'): number | undefined => {
    if (!present(key)) return undefined;
    const n = o[key];
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
      return fail([key], `json: cannot unmarshal ${typeof n === 'number' ? `number ${quoteValue(n)}` : jsonType(n)} into Go value of type uint64`);
    }
    return n;
  };
  let mode: AddressMode = 'union';
  if (present('mode')) {
    if (o.mode !== 'union' && o.mode !== 'intersection') return fail(['mode'], `unknown variant ${quoteValue(o.mode)}, expected \`union\` or \`intersection\``);
    mode = o.mode;
  }
  const params: TraceFilterParams = {
    fromBlock: block('fromBlock'),
    toBlock: block('toBlock'),
    fromAddress: addresses('fromAddress'),
    toAddress: addresses('toAddress'),
    mode,
    after: integer('after'),
    count: integer('count'),
  };
  return params;
});

/**
 * `trace_filter(filter)`: the traces of a block range whose addresses match, in chain order
 * (block, transaction, depth-first, then rewards), after skipping `after` matches and returning at
 * most `count` (docs/methods.md#trace_filter).
 *
 * Range: `fromBlock`/`toBlock` as hex numbers or `earliest`/`latest`/`pending`, both `latest` when
 * absent (OpenEthereum's defaults); a range reaching past the head ends at the head.
 * Matching: with no addresses every trace matches; with only `fromAddress` (or only `toAddress`)
 * the trace's from (to) side must be listed; with both, `mode` `union` (default) wants either side,
 * `intersection` both. Sides: call from/to, create from/new contract, suicide contract/beneficiary,
 * reward author (to side only).
 *
 * With addresses, only the blocks the address index names are replayed (plus, on a database whose
 * index is not complete, every block above the index head). Without addresses, blocks are replayed
 * in order and the scan stops once `after + count` matches (or the result limit) are found.
 * More than `rpc.traceFilterMaxResults` results → -32005, never a truncated list; a range wider
 * than `rpc.traceFilterMaxBlocks` (no cap by default) → -32602.
 * https://openethereum.github.io/JSONRPC-trace-module#trace_filter
 */
export const traceFilter = defineMethod({
  name: 'trace_filter',
  raises: REPLAY,
  cost: 'heavy', // replays the blocks of a range in the EVM workers
  evm: true,
  params: [TraceFilterObject],
  handler: async (ctx: EthContext, [filter], req): Promise<TraceFilterResult> => {
    const { traceFilterMaxResults: maxResults, traceFilterMaxBlocks: maxBlocks } = ctx.limits;
    // The defaults, the tags and the end of the range all read the request's one head snapshot.
    const head = (await headOf(ctx, req))?.number ?? 0n;
    const fromBlock = filter.fromBlock ? await traceBlockNumber(ctx, filter.fromBlock, req) : head;
    const toBlock = filter.toBlock ? await traceBlockNumber(ctx, filter.toBlock, req) : head;
    if (fromBlock > toBlock) throw new InvalidParamsError('invalid parameters: fromBlock cannot be greater than toBlock');
    if (maxBlocks !== undefined && toBlock - fromBlock > maxBlocks) {
      throw new InvalidParamsError(`Block range too large; currently limited to ${maxBlocks} blocks`);
    }
    const lastBlock = toBlock < head ? toBlock : head;
    const after = filter.after ?? 0;
    // Collect one past the limit to know whether it was exceeded.
    const wanted = Math.min(filter.count ?? Number.POSITIVE_INFINITY, maxResults + 1);
    if (fromBlock > lastBlock || wanted === 0) return [];

    const match = createMatcher(filter);
    const blocks = candidateBlocks(ctx, filter, fromBlock, lastBlock);
    const out: RpcTrace[] = [];
    let skipped = 0;
    try {
      for await (const traces of prefetchTraces(ctx, blocks, req)) {
        throwIfAborted(req); // the client went away: stop replaying
        const where = { blockNumber: traces.number, blockHash: traces.hash };
        for (const entry of blockTraceEntries(traces.txs, traces.rewards, where)) {
          if (!match(entry)) continue;
          if (skipped < after) {
            skipped++;
            continue;
          }
          out.push(entry.render());
          if (out.length >= wanted) break;
        }
        if (out.length >= wanted) break;
      }
    } finally {
      await blocks.return(undefined);
    }
    if (out.length > maxResults) {
      throw new LimitExceededError(`query returned more than ${maxResults} results`, 'narrow the block range, add addresses, or page with after and count');
    }
    return out;
  },
});

/** The trace predicate of a filter (see {@link traceFilter} for the rules). */
export function createMatcher(filter: Pick<TraceFilterParams, 'fromAddress' | 'toAddress' | 'mode'>): (entry: Pick<BlockTraceEntry, 'from' | 'to'>) => boolean {
  const from = new Set(filter.fromAddress.map((a) => bytesToHex(a)));
  const to = new Set(filter.toAddress.map((a) => bytesToHex(a)));
  const fromOk = (entry: Pick<BlockTraceEntry, 'from'>) => entry.from !== undefined && from.has(bytesToHex(entry.from));
  const toOk = (entry: Pick<BlockTraceEntry, 'to'>) => entry.to !== undefined && to.has(bytesToHex(entry.to));
  if (from.size === 0 && to.size === 0) return () => true;
  if (to.size === 0) return fromOk;
  if (from.size === 0) return toOk;
  if (filter.mode === 'intersection') return (entry) => fromOk(entry) && toOk(entry);
  return (entry) => fromOk(entry) || toOk(entry);
}

/**
 * The blocks to replay, ascending. Without addresses: all of them. With addresses: those the
 * index names up to its head, then every block above the index head (not indexed yet).
 */
async function* candidateBlocks(ctx: EthContext, filter: TraceFilterParams, fromBlock: bigint, lastBlock: bigint): AsyncGenerator<bigint> {
  let next = fromBlock;
  if (filter.fromAddress.length > 0 || filter.toAddress.length > 0) {
    const indexHead = await readIndexHead(ctx.chain.level);
    const indexedTo = indexHead < lastBlock ? indexHead : lastBlock;
    yield* indexedBlocks(ctx.chain.level, {
      fromAddresses: filter.fromAddress,
      toAddresses: filter.toAddress,
      mode: filter.mode,
      fromBlock,
      toBlock: indexedTo,
    });
    if (indexedTo + 1n > next) next = indexedTo + 1n;
  }
  for (let n = next; n <= lastBlock; n++) yield n;
}

/** The traces of each block, in order, computing up to {@link FILTER_PREFETCH_BLOCKS} ahead. */
async function* prefetchTraces(ctx: EthContext, blocks: AsyncGenerator<bigint>, req: EthRequest | undefined): AsyncGenerator<BlockTraces> {
  const tracer = tracerOf(ctx);
  const load = async (number: bigint): Promise<BlockTraces> => {
    const hash = await ctx.chain.store.canonicalHash(number);
    const traces = hash && (await tracer.tracesByHash(hash, evmRequest(req)));
    if (!traces) throw new Error(`database corrupt: canonical block ${number} missing`);
    return traces;
  };
  const queue: Promise<BlockTraces>[] = [];
  const fill = async (): Promise<boolean> => {
    const next = await blocks.next();
    if (next.done) return false;
    const promise = load(next.value);
    promise.catch(() => {}); // awaited below; avoids an unhandled rejection if the scan stops first
    queue.push(promise);
    return true;
  };
  let more = true;
  while (more && queue.length < FILTER_PREFETCH_BLOCKS) more = await fill();
  while (queue.length > 0) {
    const traces = await (queue.shift() as Promise<BlockTraces>);
    if (more) more = await fill();
    yield traces;
  }
}
