import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { Data, TraceTypeList } from '../../codec/schemas.js';
import type { CallRequest } from '../../execution/callArgs.js';
import { InvalidParamsError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import { type RpcTraceResults, renderTraceResults } from '../../tracing/parityResults.js';
import type { EthContext } from '../context.js';
import { resolveBlock } from '../eth/_shared/resolveBlock.js';
import { evmRequest } from '../evmRequest.js';
import { REPLAY } from '../raises.js';
import { traceTypes } from './_adHoc.js';

/** The call a signed transaction stands for: its sender (recovered) and every field it carries. */
function requestOf(tx: TypedTransaction): CallRequest {
  const t = tx as TypedTransaction & Partial<Record<'maxFeePerGas' | 'maxPriorityFeePerGas' | 'gasPrice' | 'maxFeePerBlobGas', bigint>>;
  const fields = tx.toJSON() as { accessList?: Array<{ address: string; storageKeys: string[] }> };
  const hex = (s: string) => Uint8Array.from(Buffer.from(s.slice(2), 'hex'));
  const auths = (tx as { authorizationList?: Array<[Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array]> }).authorizationList;
  const big = (b: Uint8Array) => (b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString('hex')}`));
  return {
    from: tx.getSenderAddress().bytes,
    to: tx.to?.bytes,
    gas: tx.gasLimit,
    ...(t.maxFeePerGas === undefined ? { gasPrice: t.gasPrice } : { maxFeePerGas: t.maxFeePerGas, maxPriorityFeePerGas: t.maxPriorityFeePerGas }),
    maxFeePerBlobGas: t.maxFeePerBlobGas,
    value: tx.value,
    nonce: tx.nonce,
    data: tx.data,
    accessList: fields.accessList?.map((e) => ({ address: hex(e.address), storageKeys: e.storageKeys.map(hex) })),
    blobVersionedHashes: (tx as { blobVersionedHashes?: Uint8Array[] }).blobVersionedHashes,
    authorizationList: auths?.map(([chainId, address, nonce, yParity, r, s]) => ({
      chainId: big(chainId),
      address,
      nonce: big(nonce),
      yParity: big(yParity),
      r: big(r),
      s: big(s),
    })),
  };
}

/**
 * `trace_rawTransaction(rawTx, traceTypes)`: traces a signed transaction on the latest state
 * without sending it, as trace_call of the call it stands for (sender recovered from the
 * signature; its gas, fees, value, data, access list and authorizations), under eth_call's gas cap
 * and deadline. As eth_call, the nonce is not checked. Bytes that are not a signed transaction
 * this chain's latest fork knows → -32602.
 * https://openethereum.github.io/JSONRPC-trace-module#trace_rawtransaction
 */
export const traceRawTransaction = defineMethod({
  name: 'trace_rawTransaction',
  raises: REPLAY,
  cost: 'heavy', // runs the EVM
  evm: true,
  params: [Data, TraceTypeList],
  handler: async (ctx: EthContext, [raw, list], req): Promise<RpcTraceResults> => {
    const types = traceTypes(list);
    const header = await resolveBlock(ctx, undefined, req);
    const common = ctx.chain.common.copy();
    common.setHardforkBy({ blockNumber: header.number, timestamp: header.timestamp });
    let request: CallRequest;
    try {
      request = requestOf(createTxFromRLP(raw, { common }));
    } catch (err) {
      throw new InvalidParamsError(`failed to decode signed transaction: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
    const [run] = await ctx.evm.adHoc.traceCalls(header, [{ request, stateDiff: types.stateDiff }], {}, evmRequest(req));
    return renderTraceResults(run?.root, run?.diff, types);
  },
});
