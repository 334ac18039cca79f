/**
 * Limits, each with the reason beside it: every bound the HTTP/WebSocket layer enforces. The
 * other layers' limits are settings (`settings.ts`).
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
