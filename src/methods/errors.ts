import {
  type RpcError,
  StarknetBlockNotFoundError,
  StarknetInvalidContinuationTokenError,
  StarknetNoBlocksError,
  StarknetPageSizeTooBigError,
  StarknetTooManyKeysInFilterError,
} from '../rpc/errors.js';
import * as starknet from '../starknet/errors.js';

/**
 * The one place domain errors become wire errors, as reth's `From<EthApiError> for ErrorObject`
 * does in a single `match` (paradigmxyz/reth `crates/rpc/rpc-eth-types/src/error/mod.rs`): the
 * domain layers throw their own plain errors, which know no JSON-RPC code, and this list gives
 * each its wire error. A method table applies it to whatever its handlers throw
 * (`createMethodTable(defs, toRpcError)` in `rpc/method.ts`).
 *
 * Returns undefined for anything else: an {@link RpcError} a method threw itself is sent as it
 * is, and any other error is a bug the dispatcher logs and answers with -32603.
 *
 * One line per domain error, grouped by domain layer; add new ones to the list.
 */
export function toRpcError(err: unknown): RpcError | undefined {
  // Starknet store and event query (`starknet/errors.ts`) → Starknet spec errors.
  if (err instanceof starknet.BlockNotFoundError) return new StarknetBlockNotFoundError();
  if (err instanceof starknet.PageSizeTooBigError) return new StarknetPageSizeTooBigError();
  if (err instanceof starknet.NoBlocksError) return new StarknetNoBlocksError();
  if (err instanceof starknet.InvalidContinuationTokenError) return new StarknetInvalidContinuationTokenError();
  if (err instanceof starknet.TooManyKeysInFilterError) return new StarknetTooManyKeysInFilterError();
  return undefined;
}
