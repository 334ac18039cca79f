import { toRpcError } from '../../src/methods/errors.js';
import { RpcError } from '../../src/rpc/errors.js';

/**
 * The JSON-RPC error a method call fails with, as the wire carries it (`{ code, message, data? }`):
 * an RpcError as it is, a domain error through `toRpcError` as the dispatcher maps it. Anything
 * else is rethrown (it would be a -32603 on the wire: a bug, not the error under test); a call
 * that succeeds fails the test.
 */
export async function wireError(call: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await call;
  } catch (err) {
    const wire = err instanceof RpcError ? err : toRpcError(err);
    if (wire) return wire.toJSON();
    throw err;
  }
  throw new Error('expected the call to fail');
}
