import { bytesToData } from '../../codec/hex.js';
import { Data } from '../../codec/schemas.js';
import { MethodNotSupportedError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';
import { forwardToUpstream } from './_shared/upstreamPool.js';

const relay = defineMethod({
  name: 'eth_sendRawTransaction',
  raises: NONE,
  params: [Data],
  handler: async (ctx: EthContext, [raw]) => {
    const hash = await forwardToUpstream(ctx.pool!, 'eth_sendRawTransaction', [bytesToData(raw)]);
    // Remembered for a while: its receipt, asked for before this node has executed its block, waits for it.
    if (typeof hash === 'string') ctx.relayed?.transactions.note(hash);
    return hash;
  },
});

/**
 * `eth_sendRawTransaction(signedTx)`: sent to the followed node, whose answer is relayed
 * unchanged — the transaction hash, or its error ("nonce too low", "insufficient funds for gas *
 * price + value", "replacement transaction underpriced", …) with its code, message and data. This
 * node keeps no pool: the transaction becomes visible here when the followed node mines it and
 * this node has executed that block (its receipt, asked for in between, waits for that block:
 * `getTransactionReceipt.ts`). A parameter that is not hex data is -32602 here (as geth
 * answers it), before anything is sent.
 *
 * Without an upstream the node is read-only and the method refuses with -32004 whatever its
 * params: the execution-apis fixtures `eth_sendRawTransaction/*.io` expect a hash from a geth
 * with a pool, and accepting a transaction that would never be mined would be a lie (those cases
 * are excluded from the conformance run on purpose).
 */
export const sendRawTransaction: typeof relay = {
  name: 'eth_sendRawTransaction',
  raises: NONE,
  call(ctx, params, req) {
    if (ctx.pool === undefined) return Promise.reject(new MethodNotSupportedError('eth_sendRawTransaction is not supported: this node is read-only'));
    return relay.call(ctx, params, req);
  },
};
