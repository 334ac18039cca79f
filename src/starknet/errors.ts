import { RpcError } from '../rpc/errors.js';

/**
 * Starknet JSON-RPC errors, with the codes and messages of the Starknet spec
 * (starkware-libs/starknet-specs `api/starknet_api_openrpc.json`, `components/errors`; the same in
 * v0.6 … v0.10). Thrown by the Starknet store-side query and by the Starknet methods; the
 * dispatcher sends them as they are.
 */

/** 24 BLOCK_NOT_FOUND: a `block_hash` or `block_number` this node does not hold, or a tag with no block. */
export class BlockNotFoundError extends RpcError {
  static readonly code = 24;
  override readonly name = 'BlockNotFoundError';
  constructor() {
    super(BlockNotFoundError.code, 'Block not found');
  }
}

/** 31 PAGE_SIZE_TOO_BIG: `chunk_size` above the page size limit. */
export class PageSizeTooBigError extends RpcError {
  static readonly code = 31;
  override readonly name = 'PageSizeTooBigError';
  constructor() {
    super(PageSizeTooBigError.code, 'Requested page size is too big');
  }
}

/** 32 NO_BLOCKS: `starknet_blockNumber` on a datadir without blocks. */
export class NoBlocksError extends RpcError {
  static readonly code = 32;
  override readonly name = 'NoBlocksError';
  constructor() {
    super(NoBlocksError.code, 'There are no blocks');
  }
}

/** 33 INVALID_CONTINUATION_TOKEN: unparsable, or not a position this filter's pages could reach. */
export class InvalidContinuationTokenError extends RpcError {
  static readonly code = 33;
  override readonly name = 'InvalidContinuationTokenError';
  constructor() {
    super(InvalidContinuationTokenError.code, 'The supplied continuation token is invalid or unknown');
  }
}

/**
 * 34 TOO_MANY_KEYS_IN_FILTER: more key positions than the limit. No `data`: the spec defines
 * none for this error (pathfinder adds `{limit, requested}` as an extension; we keep to the spec).
 */
export class TooManyKeysInFilterError extends RpcError {
  static readonly code = 34;
  override readonly name = 'TooManyKeysInFilterError';
  constructor() {
    super(TooManyKeysInFilterError.code, 'Too many keys provided in a filter');
  }
}
