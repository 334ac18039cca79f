import { describe, expect, it } from 'vitest';
import { toRpcError } from '../../src/methods/errors.js';
import { dispatch } from '../../src/rpc/dispatch.js';
import {
  RpcError,
  ServerError,
  StarknetBlockNotFoundError,
  StarknetClassHashNotFoundError,
  StarknetContractNotFoundError,
  StarknetInvalidContinuationTokenError,
  StarknetInvalidTxnIndexError,
  StarknetNoBlocksError,
  StarknetPageSizeTooBigError,
  StarknetTooManyKeysInFilterError,
  StarknetTxnHashNotFoundError,
} from '../../src/rpc/errors.js';
import { createMethodTable, type MethodDefinition } from '../../src/rpc/method.js';
import {
  BlockNotFoundError,
  ClassHashNotFoundError,
  ContractNotFoundError,
  InvalidContinuationTokenError,
  InvalidTransactionIndexError,
  NoBlocksError,
  NotHeldError,
  PageSizeTooBigError,
  StateSourceError,
  TooManyKeysInFilterError,
  TransactionNotFoundError,
} from '../../src/starknet/errors.js';

/**
 * Starknet domain errors on the wire: `toRpcError` gives each the code and message of
 * starkware-libs/starknet-specs `api/starknet_api_openrpc.json` (`components/errors`), and a
 * method table built with it applies it to whatever a handler throws.
 */
describe('toRpcError: Starknet domain errors', () => {
  it.each([
    ['BlockNotFoundError', new BlockNotFoundError('number 1000'), StarknetBlockNotFoundError, { code: 24, message: 'Block not found' }],
    ['PageSizeTooBigError', new PageSizeTooBigError(1025, 1024), StarknetPageSizeTooBigError, { code: 31, message: 'Requested page size is too big' }],
    ['NoBlocksError', new NoBlocksError(), StarknetNoBlocksError, { code: 32, message: 'There are no blocks' }],
    [
      'InvalidContinuationTokenError',
      new InvalidContinuationTokenError('not a token'),
      StarknetInvalidContinuationTokenError,
      { code: 33, message: 'The supplied continuation token is invalid or unknown' },
    ],
    [
      'TooManyKeysInFilterError',
      new TooManyKeysInFilterError(17, 16),
      StarknetTooManyKeysInFilterError,
      { code: 34, message: 'Too many keys provided in a filter' },
    ],
    ['ContractNotFoundError', new ContractNotFoundError('0x1234', 7), StarknetContractNotFoundError, { code: 20, message: 'Contract not found' }],
    [
      'InvalidTransactionIndexError',
      new InvalidTransactionIndexError('number 7', 9),
      StarknetInvalidTxnIndexError,
      { code: 27, message: 'Invalid transaction index in a block' },
    ],
    ['ClassHashNotFoundError', new ClassHashNotFoundError('0xc1a55', 7), StarknetClassHashNotFoundError, { code: 28, message: 'Class hash not found' }],
    ['TransactionNotFoundError', new TransactionNotFoundError('0x1234'), StarknetTxnHashNotFoundError, { code: 29, message: 'Transaction hash not found' }],
  ])('%s → exact code and message, no data', (name, domain, Wire, json) => {
    expect(domain.name).toBe(name);
    expect(domain).not.toBeInstanceOf(RpcError);
    const wire = toRpcError(domain);
    expect(wire).toBeInstanceOf(Wire);
    expect(wire?.code).toBe(Wire.code);
    // toStrictEqual: no `data` key at all (the spec defines none for these errors).
    expect(wire?.toJSON()).toStrictEqual(json);
    expect(wire?.httpStatus).toBe(200);
  });

  it('what the store does not hold, or the upstream did not give: -32000 with the domain message', () => {
    expect(toRpcError(new NotHeldError('the state of block 5 is not held: no state update is stored'))?.toJSON()).toStrictEqual({
      code: -32000,
      message: 'the state of block 5 is not held: no state update is stored',
    });
    expect(toRpcError(new StateSourceError('the followed node did not answer starknet_getNonce: timeout'))?.toJSON()).toStrictEqual({
      code: -32000,
      message: 'the followed node did not answer starknet_getNonce: timeout',
    });
  });

  it('the domain message says what happened; the wire message stays fixed', () => {
    expect(new BlockNotFoundError('hash 0x1234').message).toBe('block hash 0x1234 is not stored');
    expect(new PageSizeTooBigError(1025, 1024).message).toBe('page size 1025 is above the limit of 1024');
    expect(new TooManyKeysInFilterError(17, 16).message).toBe('17 key positions in the filter, above the limit of 16');
    expect(new InvalidContinuationTokenError('block outside the range').message).toBe('invalid continuation token: block outside the range');
    expect(toRpcError(new BlockNotFoundError('hash 0x1234'))?.message).toBe('Block not found');
  });

  it.each([
    ['a plain Error', new Error('boom')],
    ['a wire error', new ServerError('custom')],
    ['a string', 'boom'],
    ['undefined', undefined],
  ])('%s is not mapped', (_name, err) => {
    expect(toRpcError(err)).toBeUndefined();
  });
});

describe('createMethodTable: mapError, applied by the dispatcher', () => {
  const failure = new NoBlocksError();
  const ok: MethodDefinition<unknown> = { name: 'test_ok', call: async (_ctx, params) => params };
  const mapped: MethodDefinition<unknown> = {
    name: 'test_mapped',
    call: async () => {
      throw failure;
    },
  };
  const unmapped: MethodDefinition<unknown> = {
    name: 'test_unmapped',
    call: async () => {
      throw new Error('not a domain error');
    },
  };
  const quiet = { debug: () => {}, error: () => {} } as unknown as Parameters<typeof dispatch>[2];
  const run = (table: ReturnType<typeof createMethodTable>, method: string) =>
    dispatch(`{"jsonrpc":"2.0","id":1,"method":"${method}","params":[1]}`, { methods: table, context: undefined }, quiet, {
      maxBatchItems: 1000,
      maxMethodNameLength: 2048,
      batchResponseMaxBytes: 25_000_000,
    }).then((out) => JSON.parse(out!));

  it('the definitions are used as they are, with or without it', () => {
    const table = createMethodTable([ok, mapped], toRpcError);
    expect(table.get('test_ok')).toBe(ok);
    expect(table.get('test_mapped')).toBe(mapped);
    expect(table.mapError).toBe(toRpcError);
    expect(createMethodTable([ok]).mapError).toBeUndefined();
  });

  it('a thrown domain error is sent as the wire error mapError returns', async () => {
    expect((await run(createMethodTable([mapped], toRpcError), 'test_mapped')).error).toStrictEqual({ code: 32, message: 'There are no blocks' });
  });

  it('an error mapError does not know, or a table without it, gives -32603', async () => {
    expect((await run(createMethodTable([unmapped], toRpcError), 'test_unmapped')).error).toStrictEqual({ code: -32603, message: 'internal error' });
    expect((await run(createMethodTable([mapped]), 'test_mapped')).error).toStrictEqual({ code: -32603, message: 'internal error' });
  });

  it('results pass through; duplicates are refused as without it', async () => {
    expect((await run(createMethodTable([ok], toRpcError), 'test_ok')).result).toEqual([1]);
    expect(() => createMethodTable([ok, ok], toRpcError)).toThrow('duplicate method test_ok');
  });
});
