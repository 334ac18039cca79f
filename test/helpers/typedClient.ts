/**
 * Typed clients derived from the method tables (#40): a test names a method, the compiler checks
 * the name, the wire arguments and how the result is read, from the method's own definition
 * (`EthereumApi`, `StarknetApi`: `MethodApi` in `src/rpc/method.ts`). A handler whose result
 * changes shape breaks the tests that read it at compile time, not only at run time.
 *
 * Two forms: in process over a context (`methodsOf(table, ctx)`, as the unit and tracing tests
 * call handlers), and over a transport (`typed(rpc)`, any {@link RpcClient}). Both resolve with
 * the result and throw on an error (`CallFailed` over a transport, carrying the wire error; the
 * domain or RPC error itself in process). Tests about the wire itself (bad arguments, unknown
 * names, batches) keep `RpcClient.call`, which takes anything.
 */
import type { EthereumApi } from '../../src/methods/ethereum.js';
import type { StarknetApi } from '../../src/methods/starknet.js';
import type { MethodDefinition, MethodTable, RequestContext } from '../../src/rpc/method.js';
import type { JsonRpcError, RpcClient } from './rpcClient.js';

/** One method of an API: its wire arguments and result. */
interface ApiMethod {
  readonly params: readonly unknown[];
  readonly result: unknown;
}

/** A typed `request` over an API (`EthereumApi`, `StarknetApi`). */
export interface TypedCaller<Api extends { [N in keyof Api]: ApiMethod }> {
  request<N extends keyof Api & string>(method: N, params: Api[N]['params']): Promise<Api[N]['result']>;
}

/** The methods of `table` called in process with `ctx` (and `req`, when given), typed by `Api`. */
export function methodsOf<Api extends { [N in keyof Api]: ApiMethod }, Ctx>(table: MethodTable<Ctx>, ctx: Ctx, req?: RequestContext<never>): TypedCaller<Api> {
  return {
    request(method, params) {
      const def: MethodDefinition<Ctx> | undefined = table.get(method);
      if (def === undefined) throw new Error(`no method ${method} in this table`);
      // The table is keyed by string; the definition under `method` is the one `Api[method]` was derived from.
      return def.call(ctx, params, req) as Promise<Api[typeof method]['result']>;
    },
  };
}

/** A JSON-RPC error answered to a typed request. */
export class CallFailed extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(
    readonly method: string,
    readonly error: JsonRpcError,
  ) {
    super(`${method}: ${error.code} ${error.message}`);
    this.code = error.code;
    this.data = error.data;
  }
}

/** `client` with typed requests (Ethereum's API unless told otherwise). */
export function typed<Api extends { [N in keyof Api]: ApiMethod } = EthereumApi>(client: RpcClient): TypedCaller<Api> {
  return {
    async request(method, params) {
      const res = await client.call<Api[typeof method]['result']>(method, params);
      if (res.error) throw new CallFailed(method, res.error);
      return res.result as Api[typeof method]['result'];
    },
  };
}

/** Ethereum's methods in process (the common case of `methodsOf`). */
export type EthMethods = TypedCaller<EthereumApi>;
/** Starknet's methods (in process or over a transport). */
export type StarknetMethods = TypedCaller<StarknetApi>;
