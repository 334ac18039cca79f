import { bigIntToQuantity, bytesToData, hexKey } from '../../../codec/hex.js';
import { InvalidParamsError, LimitExceededError, ServerError } from '../../../rpc/errors.js';
import type { EthContext, EthRequest } from '../../context.js';
import { formatLogAt, type RenderedPlace, type RpcLog } from './formatLog.js';
import { headOf, throwIfAborted } from './head.js';
import {
  type CompiledLogFilter,
  compileLogFilter,
  type FilterBlock,
  type LogFilterCriteria,
  MAX_FILTER_ALTERNATIVES,
  MAX_TOPIC_POSITIONS,
} from './logFilter.js';
import { blockNumberOf } from './resolveBlock.js';

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
  // The block's fields are rendered once, a transaction's at its first log rendered; a log kept
  // rendered (`renderedLogs`) is not rendered again.
  const rendered = ctx.renderedLogs;
  const blockKey = rendered === undefined ? '' : hexKey(block.hash);
  let blockHash: string | undefined;
  let blockNumber: string | undefined;
  let blockTimestamp: string | undefined;
  let logIndex = 0;
  for (let txIndex = 0; txIndex < receipts.length; txIndex++) {
    let place: RenderedPlace | undefined;
    for (const log of receipts[txIndex].logs) {
      if (filter.matches(log)) {
        const render = () => {
          blockHash ??= bytesToData(block.hash);
          blockNumber ??= bigIntToQuantity(block.number);
          blockTimestamp ??= bigIntToQuantity(block.timestamp);
          place ??= { blockHash, blockNumber, blockTimestamp, transactionHash: bytesToData(txHashes[txIndex]), transactionIndex: bigIntToQuantity(txIndex) };
          return formatLogAt(log, place, logIndex);
        };
        out.push(rendered === undefined ? render() : rendered.item(blockKey, logIndex, render));
        if (out.length > maxResults) throw new LimitExceededError(`query returned more than ${maxResults} results`);
      }
      logIndex++;
    }
  }
}

async function resolveFilterBlock(ctx: EthContext, id: FilterBlock | undefined, req: EthRequest | undefined): Promise<bigint> {
  return blockNumberOf(ctx, id ?? { kind: 'tag', tag: 'latest' }, req);
}

/**
 * The logs of the chain that match `criteria`, under the getLogs limits: what eth_getLogs answers,
 * and eth_getFilterLogs for a filter's criteria. See eth_getLogs (`getLogs.ts`) for the cases.
 */
export async function findLogs(ctx: EthContext, criteria: LogFilterCriteria, req: EthRequest | undefined): Promise<RpcLog[]> {
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
}
