/**
 * JSON-RPC error classes. Every error that reaches a client is an {@link RpcError}; each subclass
 * stands for one meaning and carries its code. Codes follow JSON-RPC 2.0 and the Ethereum
 * community's extended set (ethereum/execution-apis `src/error-groups`).
 */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  /** HTTP status to use when this error answers a whole HTTP request (auth, size limits). */
  readonly httpStatus: number;
  constructor(code: number, message: string, data?: unknown, httpStatus = 200) {
    super(message);
    this.code = code;
    this.data = data;
    this.httpStatus = httpStatus;
  }
  /** The wire `error` object. `data` is present only when set. */
  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

/** -32700: the body is not valid JSON. */
export class ParseError extends RpcError {
  static readonly code = -32700;
  override readonly name = 'ParseError';
  constructor(detail = 'parse error') {
    super(ParseError.code, detail);
  }
}

/** -32600: the JSON is not a valid request object (or batch). */
export class InvalidRequestError extends RpcError {
  static readonly code = -32600;
  override readonly name = 'InvalidRequestError';
  constructor(message = 'invalid request', httpStatus = 200) {
    super(InvalidRequestError.code, message, undefined, httpStatus);
  }
}

/** -32601: the method is unknown or not served by this network (geth's wording). */
export class MethodNotFoundError extends RpcError {
  static readonly code = -32601;
  override readonly name = 'MethodNotFoundError';
  constructor(method: string) {
    super(MethodNotFoundError.code, `the method ${method} does not exist/is not available`);
  }
}

/** -32602: the params do not decode; the message names the argument (geth's wording). */
export class InvalidParamsError extends RpcError {
  static readonly code = -32602;
  override readonly name = 'InvalidParamsError';
  constructor(message: string) {
    super(InvalidParamsError.code, message);
  }
}

/** -32603: an unexpected failure. The message is fixed; details go to the log only. */
export class InternalError extends RpcError {
  static readonly code = -32603;
  override readonly name = 'InternalError';
  constructor() {
    super(InternalError.code, 'internal error');
  }
}

/** -32000: geth's generic server error, used for e.g. `header not found`. */
export class ServerError extends RpcError {
  static readonly code = -32000;
  override readonly name = 'ServerError';
  constructor(message: string, data?: unknown) {
    super(ServerError.code, message, data);
  }
}

/** -32001: Infura's "resource not found"; also the code for a missing/unknown API key (HTTP 401). */
export class ResourceNotFoundError extends RpcError {
  static readonly code = -32001;
  override readonly name = 'ResourceNotFoundError';
  constructor(message: string, httpStatus = 200) {
    super(ResourceNotFoundError.code, message, undefined, httpStatus);
  }
}

/**
 * -32002: EIP-1474's "resource unavailable": what was asked exists, but cannot be read now (the
 * state an archive from block N fetches from the followed node while that node is away); asking
 * again later may succeed.
 */
export class ResourceUnavailableError extends RpcError {
  static readonly code = -32002;
  override readonly name = 'ResourceUnavailableError';
  constructor(message: string, data?: unknown) {
    super(ResourceUnavailableError.code, message, data);
  }
}

/**
 * 4444: geth's `history.PrunedHistoryError` (core/history/historymode.go), answered for a block,
 * its transactions, receipts or logs below the history a node keeps. The text starts with geth's
 * `pruned history unavailable`.
 */
export class PrunedHistoryError extends RpcError {
  static readonly code = 4444;
  override readonly name = 'PrunedHistoryError';
  constructor(message: string, data?: unknown) {
    super(PrunedHistoryError.code, message, data);
  }
}

/**
 * -32601 `notifications not supported`: a subscription asked for over a transport that cannot
 * carry notifications (HTTP); geth's `ErrNotificationsUnsupported` (`rpc/errors.go`).
 */
export class NotificationsUnsupportedError extends RpcError {
  static readonly code = -32601;
  override readonly name = 'NotificationsUnsupportedError';
  constructor() {
    super(NotificationsUnsupportedError.code, 'notifications not supported');
  }
}

/** -32004: the method exists on Ethereum but this read-only node does not support it. */
export class MethodNotSupportedError extends RpcError {
  static readonly code = -32004;
  override readonly name = 'MethodNotSupportedError';
  constructor(message: string) {
    super(MethodNotSupportedError.code, message);
  }
}

/**
 * An error the followed node answered to a call this node relays to it (eth_sendRawTransaction,
 * a pending nonce): its code, message and data, unchanged, so that a client reads "nonce too low"
 * or "insufficient funds" as the node with the transaction pool said it. No static code: the code
 * is the upstream's.
 */
export class UpstreamAnswerError extends RpcError {
  override readonly name = 'UpstreamAnswerError';
}

/** -32005: a limit was exceeded (result count, range, rate, size). */
export class LimitExceededError extends RpcError {
  static readonly code = -32005;
  // Widened to string: the per-limit refusals of the pipeline (`pipeline/refusals.ts`) name themselves.
  override readonly name: string = 'LimitExceededError';
  constructor(message: string, data?: unknown, httpStatus = 200) {
    super(LimitExceededError.code, message, data, httpStatus);
  }
}

/** 3: the EVM reverted; `data` holds the revert bytes as hex (geth ≥ 1.15.6). */
export class ExecutionRevertedError extends RpcError {
  static readonly code = 3;
  override readonly name = 'ExecutionRevertedError';
  constructor(message: string, data: string) {
    super(ExecutionRevertedError.code, message, data);
  }
}

// Starknet: codes and messages of starkware-libs/starknet-specs `api/starknet_api_openrpc.json`,
// `components/errors` (the same in v0.6 … v0.10). The Starknet store throws domain errors
// (`starknet/errors.ts`); `methods/errors.ts` maps them to these.

/** 24 BLOCK_NOT_FOUND: a `block_hash` or `block_number` this node does not hold, or a tag with no block. */
export class StarknetBlockNotFoundError extends RpcError {
  static readonly code = 24;
  override readonly name = 'StarknetBlockNotFoundError';
  constructor() {
    super(StarknetBlockNotFoundError.code, 'Block not found');
  }
}

/** 31 PAGE_SIZE_TOO_BIG: `chunk_size` above the page size limit. */
export class StarknetPageSizeTooBigError extends RpcError {
  static readonly code = 31;
  override readonly name = 'StarknetPageSizeTooBigError';
  constructor() {
    super(StarknetPageSizeTooBigError.code, 'Requested page size is too big');
  }
}

/** 32 NO_BLOCKS: `starknet_blockNumber` on a datadir without blocks. */
export class StarknetNoBlocksError extends RpcError {
  static readonly code = 32;
  override readonly name = 'StarknetNoBlocksError';
  constructor() {
    super(StarknetNoBlocksError.code, 'There are no blocks');
  }
}

/** 33 INVALID_CONTINUATION_TOKEN: unparsable, or not a position this filter's pages could reach. */
export class StarknetInvalidContinuationTokenError extends RpcError {
  static readonly code = 33;
  override readonly name = 'StarknetInvalidContinuationTokenError';
  constructor() {
    super(StarknetInvalidContinuationTokenError.code, 'The supplied continuation token is invalid or unknown');
  }
}

/**
 * 34 TOO_MANY_KEYS_IN_FILTER: more key positions than the limit. No `data`: the spec defines
 * none for this error (pathfinder adds `{limit, requested}` as an extension; we keep to the spec).
 */
export class StarknetTooManyKeysInFilterError extends RpcError {
  static readonly code = 34;
  override readonly name = 'StarknetTooManyKeysInFilterError';
  constructor() {
    super(StarknetTooManyKeysInFilterError.code, 'Too many keys provided in a filter');
  }
}

/** 66 INVALID_SUBSCRIPTION_ID (Starknet WebSocket spec): `starknet_unsubscribe` of an id this connection does not hold. */
export class StarknetInvalidSubscriptionIdError extends RpcError {
  static readonly code = 66;
  override readonly name = 'StarknetInvalidSubscriptionIdError';
  constructor() {
    super(StarknetInvalidSubscriptionIdError.code, 'Invalid subscription id');
  }
}

/**
 * 68 TOO_MANY_BLOCKS_BACK (Starknet WebSocket spec): a subscription's `block_id` lies more than
 * the limit below the head. The spec's text names 1024, its limit; the message names ours.
 */
export class StarknetTooManyBlocksBackError extends RpcError {
  static readonly code = 68;
  override readonly name = 'StarknetTooManyBlocksBackError';
  constructor(limit: number) {
    super(StarknetTooManyBlocksBackError.code, `Cannot go back more than ${limit} blocks`);
  }
}

/** 20 CONTRACT_NOT_FOUND: no contract is deployed at the address at the block asked for. */
export class StarknetContractNotFoundError extends RpcError {
  static readonly code = 20;
  override readonly name = 'StarknetContractNotFoundError';
  constructor() {
    super(StarknetContractNotFoundError.code, 'Contract not found');
  }
}

/** 27 INVALID_TXN_INDEX: the block has no transaction at that index. */
export class StarknetInvalidTxnIndexError extends RpcError {
  static readonly code = 27;
  override readonly name = 'StarknetInvalidTxnIndexError';
  constructor() {
    super(StarknetInvalidTxnIndexError.code, 'Invalid transaction index in a block');
  }
}

/** 28 CLASS_HASH_NOT_FOUND: no class of that hash is declared at the block asked for. */
export class StarknetClassHashNotFoundError extends RpcError {
  static readonly code = 28;
  override readonly name = 'StarknetClassHashNotFoundError';
  constructor() {
    super(StarknetClassHashNotFoundError.code, 'Class hash not found');
  }
}

/** 29 TXN_HASH_NOT_FOUND: no transaction of that hash is known. */
export class StarknetTxnHashNotFoundError extends RpcError {
  static readonly code = 29;
  override readonly name = 'StarknetTxnHashNotFoundError';
  constructor() {
    super(StarknetTxnHashNotFoundError.code, 'Transaction hash not found');
  }
}

/**
 * -32601 for a method this network knows but does not serve here (it needs what the node lacks,
 * such as Starknet execution, and no upstream is followed to forward it to); the message says why.
 */
export class NotServedError extends RpcError {
  static readonly code = -32601;
  override readonly name = 'NotServedError';
  constructor(message: string) {
    super(NotServedError.code, message);
  }
}

/** -32002 with HTTP 403: the key's allowlists refuse the request (Infura's text). */
export class RejectedByKeySettingsError extends RpcError {
  static readonly code = -32002;
  override readonly name = 'RejectedByKeySettingsError';
  constructor() {
    super(RejectedByKeySettingsError.code, 'rejected due to project ID settings', undefined, 403);
  }
}
