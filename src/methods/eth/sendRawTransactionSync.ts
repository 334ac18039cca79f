import { bigIntToQuantity, bytesToData } from '../../codec/hex.js';
import { Data, Quantity64 } from '../../codec/schemas.js';
import { MethodNotSupportedError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';
import { forwardToUpstream } from './_shared/upstreamPool.js';

const relay = defineMethod({
  name: 'eth_sendRawTransactionSync',
  raises: NONE,
  params: [Data, Quantity64],
  required: 1,
  handler: (ctx: EthContext, [raw, timeoutMs]) =>
    forwardToUpstream(ctx.pool!, 'eth_sendRawTransactionSync', timeoutMs === undefined ? [bytesToData(raw)] : [bytesToData(raw), bigIntToQuantity(timeoutMs)]),
});

/**
 * `eth_sendRawTransactionSync(signedTx, timeoutMs?)` (EIP-7966): sent to the followed node, which
 * waits for the receipt; its answer (the receipt, or its error — a timeout is code 4 with the
 * hash as data; a node without the method answers -32601) is relayed unchanged. The upstream
 * request is bounded by `follow.requestTimeoutMs`. Without an upstream: -32004, as
 * eth_sendRawTransaction.
 */
export const sendRawTransactionSync: typeof relay = {
  name: 'eth_sendRawTransactionSync',
  raises: NONE,
  call(ctx, params, req) {
    if (ctx.pool === undefined) return Promise.reject(new MethodNotSupportedError('eth_sendRawTransactionSync is not supported: this node is read-only'));
    return relay.call(ctx, params, req);
  },
};
