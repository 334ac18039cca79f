import { BlockNumberOrTag } from '../../codec/blockId.js';
import { ServerError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { blockNumberOf } from '../eth/_shared/resolveBlock.js';
import { REPLAY } from '../raises.js';
import { TraceConfigParam, traceWholeBlock } from './_trace.js';

/**
 * `debug_traceBlockByNumber(number, traceConfig?)`: as debug_traceBlockByHash, for the block with
 * this number or tag (`latest`, `pending`, `safe` and `finalized` name the head of an imported
 * chain). Unknown number: -32000 `block #<n> not found`. geth's `API.TraceBlockByNumber`
 * (ethereum/go-ethereum `eth/tracers/api.go`).
 */
export const traceBlockByNumber = defineMethod({
  name: 'debug_traceBlockByNumber',
  raises: REPLAY,
  cost: 'heavy', // replays the block in the EVM workers
  evm: true,
  params: [BlockNumberOrTag, TraceConfigParam],
  required: 1,
  handler: async (ctx: EthContext, [id, config], req) => {
    const number = await blockNumberOf(ctx, id as Exclude<typeof id, { kind: 'hash' }>, req);
    const hash = await ctx.chain.store.canonicalHash(number);
    const block = hash ? await ctx.chain.store.blockByHash(hash) : undefined;
    if (!block) throw new ServerError(`block #${number} not found`);
    return traceWholeBlock(ctx, block, config, req);
  },
});
