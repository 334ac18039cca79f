import { bytesToHex } from '@ethereumjs/util';
import { Hash } from '../../codec/schemas.js';
import { ServerError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { REPLAY } from '../raises.js';
import { TraceConfigParam, traceWholeBlock } from './_trace.js';

/**
 * `debug_traceBlockByHash(hash, traceConfig?)`: every transaction of a stored block traced as
 * debug_traceTransaction traces one, answered as `[{txHash, result}]`. Unknown hash: -32000
 * `block <hash> not found`; the genesis: `genesis is not traceable`. geth's
 * `API.TraceBlockByHash` (ethereum/go-ethereum `eth/tracers/api.go`).
 */
export const traceBlockByHash = defineMethod({
  name: 'debug_traceBlockByHash',
  raises: REPLAY,
  cost: 'heavy', // replays the block in the EVM workers
  evm: true,
  params: [Hash, TraceConfigParam],
  required: 1,
  handler: async (ctx: EthContext, [hash, config], req) => {
    const block = await ctx.chain.store.blockByHash(hash);
    if (!block) throw new ServerError(`block ${bytesToHex(hash)} not found`);
    return traceWholeBlock(ctx, block, config, req);
  },
});
