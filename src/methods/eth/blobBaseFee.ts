import { bigIntToQuantity } from '../../codec/hex.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { HISTORY } from '../raises.js';
import { headOf } from './_shared/head.js';

/**
 * `eth_blobBaseFee`: the blob base fee of the head block, from its excess blob gas (EIP-4844), as
 * geth answers (`EthAPIBackend.BlobBaseFee`: the head's own fee, not the next block's); `null`
 * when the head is pre-Cancun.
 */
export const blobBaseFee = defineMethod({
  name: 'eth_blobBaseFee',
  raises: HISTORY,
  params: [],
  handler: async (ctx: EthContext, _args, req) => {
    const head = await headOf(ctx, req);
    const header = head ? await ctx.chain.store.headerOfHead(head) : undefined;
    if (header?.excessBlobGas === undefined) return null;
    return bigIntToQuantity(header.getBlobGasPrice());
  },
});
