import { InvalidParamsError, LimitExceededError, ServerError } from '../../rpc/errors.js';
import type { RequestContext } from '../../rpc/method.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { formatLog, type RpcLog } from './_shared/formatLog.js';
import { headOf, throwIfAborted } from './_shared/head.js';
import {
  type CompiledLogFilter,
  compileLogFilter,
  type FilterBlock,
  LogFilterSchema,
  MAX_FILTER_ALTERNATIVES,
  MAX_TOPIC_POSITIONS,
} from './_shared/logFilter.js';
import { blockNumberOf } from './_shared/resolveBlock.js';

/** Where a block's logs sit, for formatting. */
interface BlockPlace {
  hash: Uint8Array;
  number: bigint;
  timestamp: bigint;
}

/** Appends the block's logs that match; throws once the result cap is passed. */
async function collectBlock(ctx: EthContext, block: BlockPlace, filter: CompiledLogFilter, out: RpcLog[]): Promise<void> {
  const maxResults = ctx.limits.getLogsMaxResults;
  const [txHashes, receipts] = await Promise.all([ctx.chain.store.txHashes(block.hash), ctx.chain.store.receipts(block.hash)]);
  if (!txHashes || !receipts) return;
  let logIndex = 0;
  receipts.forEach((receipt, txIndex) => {
    for (const log of receipt.logs) {
      if (filter.matches(log)) {
        out.push(
          formatLog(log, {
            blockHash: block.hash,
            blockNumber: block.number,
            blockTimestamp: block.timestamp,
            transactionHash: txHashes[txIndex],
            transactionIndex: txIndex,
            logIndex,
          }),
        );
        if (out.length > maxResults) throw new LimitExceededError(`query returned more than ${maxResults} results`);
      }
      logIndex++;
    }
  });
}

async function resolveFilterBlock(ctx: EthContext, id: FilterBlock | undefined, req: RequestContext | undefined): Promise<bigint> {
  return blockNumberOf(ctx, id ?? { kind: 'tag', tag: 'latest' }, req);
}

/**
 * `eth_getLogs(filter)`, under the caps of the `rpc` settings (`getLogsMaxResults`,
 * `getLogsMaxBlockRange`: the providers' 10,000 logs with their exact message, docs/methods.md#limits;
 * geth has no cap). Cases, checked in this order (geth
 * `eth/filters/api.go` GetLogs and `filter.go`, texts and codes as the execution-apis fixtures):
 *
 * 1. `blockHash` with `fromBlock`/`toBlock`: -32602 `invalid argument 0: cannot specify both…`
 *    (a decoding error, raised by the schema).
 * 2. More than 4 topic positions, or more than 1000 addresses or alternatives in one position:
 *    -32602, geth's texts.
 * 3. `blockHash`: that block only; unknown hash → -32000 `unknown block`.
 * 4. Range: bounds default to `latest`; tags resolve as for every other method (an imported chain
 *    has no pending block, so `pending`, `safe` and `finalized` are the head; `earliest` is 0).
 *    `from > to` → -32602 `invalid block range params`; `to` past the head → -32602
 *    `block range extends beyond current head block`; more than `getLogsMaxBlockRange` blocks →
 *    -32005 (the scan reads every header of the range, so its cost grows with the range even when
 *    nothing matches).
 * 5. Each block's header bloom is tested first, so blocks that cannot match are never decoded;
 *    more than `getLogsMaxResults` logs → -32005 `query returned more than N results`.
 * https://ethereum.github.io/execution-apis/api-documentation/
 */
export const getLogs = defineMethod({
  name: 'eth_getLogs',
  params: [LogFilterSchema],
  handler: async (ctx: EthContext, [criteria], req) => {
    if (criteria.topics.length > MAX_TOPIC_POSITIONS) throw new InvalidParamsError('exceed max topics');
    if (criteria.addresses.length > MAX_FILTER_ALTERNATIVES || criteria.topics.some((t) => t.length > MAX_FILTER_ALTERNATIVES)) {
      throw new InvalidParamsError('exceed max addresses or topics per search position');
    }
    const filter = compileLogFilter(criteria.addresses, criteria.topics);
    const store = ctx.chain.store;
    const out: RpcLog[] = [];

    if (criteria.blockHash) {
      const header = await store.headerByHash(criteria.blockHash);
      if (!header) throw new ServerError('unknown block');
      if (filter.mayMatchBloom(header.logsBloom))
        await collectBlock(ctx, { hash: header.hash(), number: header.number, timestamp: header.timestamp }, filter, out);
      return out;
    }

    // Tags and the head check all read the request's one head snapshot.
    const from = await resolveFilterBlock(ctx, criteria.fromBlock, req);
    const to = await resolveFilterBlock(ctx, criteria.toBlock, req);
    const head = (await headOf(ctx, req))?.number ?? 0n;
    if (from > to) throw new InvalidParamsError('invalid block range params');
    if (to > head) throw new InvalidParamsError('block range extends beyond current head block');
    const maxBlockRange = ctx.limits.getLogsMaxBlockRange;
    if (to - from + 1n > maxBlockRange) {
      throw new LimitExceededError(`query exceeds max block range of ${maxBlockRange} blocks (asked for ${to - from + 1n})`);
    }
    for await (const place of store.canonicalBlooms(from, to)) {
      if (filter.mayMatchBloom(place.logsBloom)) {
        throwIfAborted(req); // the client went away: stop scanning
        await collectBlock(ctx, place, filter, out);
      }
    }
    return out;
  },
});
