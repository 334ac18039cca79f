import { ServerError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { formatHeader, type RpcHeader } from '../eth/_shared/formatBlock.js';
import { blockNumberOf } from '../eth/_shared/resolveBlock.js';
import { OtsBlockNumber } from '../ots/_shared/params.js';
import { HISTORY } from '../raises.js';

/**
 * `erigon_getHeaderByNumber(number)`: the canonical header at a number or tag (erigon
 * `erigon_block.go`), which Otterscan calls for the latest block and to tell an erigon-like node.
 * Beyond the head: erigon's `block header not found: N` (-32000). The number may be a JSON
 * number (Otterscan sends one), a hex or decimal string, or a tag.
 */
export const erigonGetHeaderByNumber = defineMethod({
  name: 'erigon_getHeaderByNumber',
  raises: HISTORY,
  params: [OtsBlockNumber],
  handler: async (ctx: EthContext, [id], req): Promise<RpcHeader> => {
    const number = await blockNumberOf(ctx, id, req);
    const header = await ctx.chain.store.headerByNumber(number);
    if (!header) throw new ServerError(`block header not found: ${number}`);
    return formatHeader(header);
  },
});
