import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { findBlock } from '../eth/_shared/findBlock.js';
import { HISTORY } from '../raises.js';
import { blockDetails, type OtsBlockDetails } from './_shared/blocks.js';
import { OtsBlockNumber } from './_shared/params.js';

/**
 * `ots_getBlockDetails(number)`: a block without its transactions (their count instead, no logs
 * bloom), its issuance and its fees (erigon `otterscan_block_details.go`); `null` beyond the head.
 * The number may be a JSON number, a hex or decimal string, or a tag.
 */
export const otsGetBlockDetails = defineMethod({
  name: 'ots_getBlockDetails',
  raises: HISTORY,
  params: [OtsBlockNumber],
  handler: async (ctx: EthContext, [id], req): Promise<OtsBlockDetails | null> => {
    const block = await findBlock(ctx, id, req);
    return block ? blockDetails(ctx, block) : null;
  },
});
