import { describe, expect, it } from 'vitest';
import * as wire from './errors.js';

type Json = { code: number; message: string; data?: unknown };

/**
 * Every wire error class, as a client receives it: code, message, data and the HTTP status of a
 * whole-request refusal. Sources: JSON-RPC 2.0 (-32700…-32603), geth (`rpc/errors.go`: the
 * -32601 texts; `internal/ethapi`: -32000 and the revert's code 3 with its data;
 * `core/history`: 4444), EIP-1474 (-32001, -32002, -32004, -32005), Infura's documentation (the
 * -32002 key-settings refusal with HTTP 403, -32001 with HTTP 401), starkware-libs/starknet-specs
 * `components/errors` (20, 24, 27, 28, 29, 31–34, 66, 68).
 */
const CASES: ReadonlyArray<[string, wire.RpcError, Json, number]> = [
  ['ParseError', new wire.ParseError(), { code: -32700, message: 'parse error' }, 200],
  ['InvalidRequestError', new wire.InvalidRequestError(), { code: -32600, message: 'invalid request' }, 200],
  ['InvalidRequestError (whole request)', new wire.InvalidRequestError('empty batch', 400), { code: -32600, message: 'empty batch' }, 400],
  ['MethodNotFoundError', new wire.MethodNotFoundError('eth_foo'), { code: -32601, message: 'the method eth_foo does not exist/is not available' }, 200],
  [
    'InvalidParamsError',
    new wire.InvalidParamsError('missing value for required argument 0'),
    { code: -32602, message: 'missing value for required argument 0' },
    200,
  ],
  ['InternalError', new wire.InternalError(), { code: -32603, message: 'internal error' }, 200],
  ['ServerError', new wire.ServerError('header not found'), { code: -32000, message: 'header not found' }, 200],
  [
    'ServerError (data)',
    new wire.ServerError('missing trie node', { archiveStart: '0x64' }),
    { code: -32000, message: 'missing trie node', data: { archiveStart: '0x64' } },
    200,
  ],
  ['ResourceNotFoundError', new wire.ResourceNotFoundError('invalid project id', 401), { code: -32001, message: 'invalid project id' }, 401],
  [
    'ResourceUnavailableError',
    new wire.ResourceUnavailableError('try again', { retryable: true }),
    { code: -32002, message: 'try again', data: { retryable: true } },
    200,
  ],
  ['PrunedHistoryError', new wire.PrunedHistoryError('pruned history unavailable'), { code: 4444, message: 'pruned history unavailable' }, 200],
  ['NotificationsUnsupportedError', new wire.NotificationsUnsupportedError(), { code: -32601, message: 'notifications not supported' }, 200],
  ['MethodNotSupportedError', new wire.MethodNotSupportedError('read-only'), { code: -32004, message: 'read-only' }, 200],
  ['UpstreamAnswerError', new wire.UpstreamAnswerError(-32000, 'nonce too low', { x: 1 }), { code: -32000, message: 'nonce too low', data: { x: 1 } }, 200],
  [
    'LimitExceededError',
    new wire.LimitExceededError('query returned more than 10000 results'),
    { code: -32005, message: 'query returned more than 10000 results' },
    200,
  ],
  ['ExecutionRevertedError', new wire.ExecutionRevertedError('execution reverted', '0x'), { code: 3, message: 'execution reverted', data: '0x' }, 200],
  ['StarknetBlockNotFoundError', new wire.StarknetBlockNotFoundError(), { code: 24, message: 'Block not found' }, 200],
  ['StarknetPageSizeTooBigError', new wire.StarknetPageSizeTooBigError(), { code: 31, message: 'Requested page size is too big' }, 200],
  ['StarknetNoBlocksError', new wire.StarknetNoBlocksError(), { code: 32, message: 'There are no blocks' }, 200],
  [
    'StarknetInvalidContinuationTokenError',
    new wire.StarknetInvalidContinuationTokenError(),
    { code: 33, message: 'The supplied continuation token is invalid or unknown' },
    200,
  ],
  ['StarknetTooManyKeysInFilterError', new wire.StarknetTooManyKeysInFilterError(), { code: 34, message: 'Too many keys provided in a filter' }, 200],
  ['StarknetInvalidSubscriptionIdError', new wire.StarknetInvalidSubscriptionIdError(), { code: 66, message: 'Invalid subscription id' }, 200],
  ['StarknetTooManyBlocksBackError', new wire.StarknetTooManyBlocksBackError(1024), { code: 68, message: 'Cannot go back more than 1024 blocks' }, 200],
  ['StarknetContractNotFoundError', new wire.StarknetContractNotFoundError(), { code: 20, message: 'Contract not found' }, 200],
  ['StarknetInvalidTxnIndexError', new wire.StarknetInvalidTxnIndexError(), { code: 27, message: 'Invalid transaction index in a block' }, 200],
  ['StarknetClassHashNotFoundError', new wire.StarknetClassHashNotFoundError(), { code: 28, message: 'Class hash not found' }, 200],
  ['StarknetTxnHashNotFoundError', new wire.StarknetTxnHashNotFoundError(), { code: 29, message: 'Transaction hash not found' }, 200],
  ['NotServedError', new wire.NotServedError('starknet_call needs an upstream'), { code: -32601, message: 'starknet_call needs an upstream' }, 200],
  ['RejectedByKeySettingsError', new wire.RejectedByKeySettingsError(), { code: -32002, message: 'rejected due to project ID settings' }, 403],
];

describe('wire errors (rpc/errors.ts)', () => {
  it('each class answers its code, text, data and HTTP status', () => {
    for (const [what, err, json, status] of CASES) {
      expect(err.toJSON(), what).toEqual(json);
      expect(err.httpStatus, what).toBe(status);
      expect(err, what).toBeInstanceOf(wire.RpcError);
    }
  });

  it('every class the module exports is pinned above, and each static code is the one it sends', () => {
    const classes = Object.entries(wire).filter(([, v]) => typeof v === 'function' && v !== wire.RpcError);
    const pinned = new Set(CASES.map(([, err]) => err.constructor));
    expect(classes.filter(([, cls]) => !pinned.has(cls as never)).map(([name]) => name)).toEqual([]);
    for (const [, err, json] of CASES) {
      const code = (err.constructor as { code?: number }).code;
      if (code !== undefined) expect(code).toBe(json.code);
    }
  });
});
