/**
 * Limits, each with the reason beside it: every bound the HTTP/WebSocket layer enforces, and the
 * trace methods' result and range caps.
 * `buildServer` takes {@link TransportLimits} (defaults below) so tests can shrink them.
 * Peers' values come from docs/methods.md#envelope (geth `rpc/http.go`, `rpc/handler.go`).
 */

/** Largest HTTP request body accepted; geth's `defaultBodyLimit` (5 MiB). Larger → HTTP 413. */
export const HTTP_MAX_BODY_BYTES = 5 * 1024 * 1024;

/** Most items in one HTTP batch; geth's default `BatchRequestLimit`. Larger → one `batch too large` error. */
export const HTTP_MAX_BATCH_ITEMS = 1000;

/**
 * Largest WebSocket message (after reassembling fragments). Same as the HTTP body limit so that
 * a request accepted over one transport is accepted over the other. Larger → close code 1009.
 */
export const WS_MAX_MESSAGE_BYTES = 5 * 1024 * 1024;

/** Most items in one WebSocket batch; geth applies the same `BatchRequestLimit` to every transport. */
export const WS_MAX_BATCH_ITEMS = 1000;

/** Longest method name accepted; geth's `maxMethodNameLength`, which keeps giant names out of logs. */
export const MAX_METHOD_NAME_LENGTH = 2048;

/**
 * Total bytes of the responses of one batch; geth's default `BatchResponseMaxSize`. Items past it
 * get `-32003 response too large`, so one batch cannot make the server hold gigabytes of JSON.
 */
export const BATCH_RESPONSE_MAX_BYTES = 25_000_000;

/**
 * Messages one WebSocket connection may have in progress. At the limit the server stops reading
 * from that socket (TCP backpressure) instead of failing requests, so one pipelining client cannot
 * queue unbounded work while others wait.
 */
export const WS_MAX_IN_FLIGHT_MESSAGES = 32;

/**
 * How long `close()` waits for WebSocket clients to answer the 1001 close frame before it cuts
 * their TCP connection; ws's own default (30 s) would make shutdown hang on a dead peer.
 */
export const WS_CLOSE_GRACE_MS = 1000;

/** The limits `buildServer` enforces; each field defaults to the constant of the same meaning. */
export interface TransportLimits {
  httpMaxBodyBytes: number;
  httpMaxBatchItems: number;
  wsMaxMessageBytes: number;
  wsMaxBatchItems: number;
  maxMethodNameLength: number;
  batchResponseMaxBytes: number;
  wsMaxInFlightMessages: number;
  wsCloseGraceMs: number;
}

/** The production values of {@link TransportLimits}. */
export const DEFAULT_TRANSPORT_LIMITS: Readonly<TransportLimits> = Object.freeze({
  httpMaxBodyBytes: HTTP_MAX_BODY_BYTES,
  httpMaxBatchItems: HTTP_MAX_BATCH_ITEMS,
  wsMaxMessageBytes: WS_MAX_MESSAGE_BYTES,
  wsMaxBatchItems: WS_MAX_BATCH_ITEMS,
  maxMethodNameLength: MAX_METHOD_NAME_LENGTH,
  batchResponseMaxBytes: BATCH_RESPONSE_MAX_BYTES,
  wsMaxInFlightMessages: WS_MAX_IN_FLIGHT_MESSAGES,
  wsCloseGraceMs: WS_CLOSE_GRACE_MS,
});

// Trace methods

/**
 * Most traces in one trace_filter response: the 10,000 Infura documented for trace_filter. A
 * query that would return more is refused with -32005 (never a truncated list), so a client can
 * page with `after`/`count` or narrow the range.
 */
export const MAX_TRACE_FILTER_RESULTS = 10_000;

/**
 * Widest trace_filter block range (toBlock − fromBlock), or undefined for no cap, the default:
 * the address index makes wide ranges cheap when addresses are given, and without addresses the
 * scan stops at the result limit. reth caps at 100 (`--rpc.max-trace-filter-blocks`) because it
 * scans; operators who want that can set it.
 */
export const DEFAULT_MAX_TRACE_FILTER_BLOCKS: bigint | undefined = undefined;
