import { Hash } from '../../codec/schemas.js';
import { ServerError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { blockDetails, type OtsBlockDetails } from './_shared/blocks.js';

/**
 * `ots_getBlockDetailsByHash(hash)`: as ots_getBlockDetails, for a block named by hash (any stored
 * block). An unknown hash is erigon's error, the hash printed as Go prints a byte slice:
 * `couldn't find block number for hash [18 52 …]` (-32000).
 */
export const otsGetBlockDetailsByHash = defineMethod({
  name: 'ots_getBlockDetailsByHash',
  raises: HISTORY,
  params: [Hash],
  handler: async (ctx: EthContext, [hash]): Promise<OtsBlockDetails> => {
    const block = await ctx.chain.store.blockByHash(hash);
    if (!block) throw new ServerError(`couldn't find block number for hash [${[...hash].join(' ')}]`);
    return blockDetails(ctx, block);
  },
});
