import { describe, expect, it } from 'vitest';
import type { MethodTable } from '../rpc/method.js';
import { ethereumMethods } from './ethereum.js';
import { starknetMethods } from './starknet.js';

/**
 * The heavy methods before each method declared its cost (issue #30): the pipeline's name rule,
 * `eth_call`, `eth_estimateGas`, `eth_getLogs`, `eth_createAccessList`, `eth_simulateV1` and
 * every name starting `trace_` or `debug_trace`, applied to every name of both networks' tables.
 */
const HEAVY_BY_THE_OLD_NAME_RULE = [
  'debug_traceBlockByHash',
  'debug_traceBlockByNumber',
  'debug_traceCall',
  'debug_traceTransaction',
  'eth_call',
  'eth_createAccessList',
  'eth_estimateGas',
  'eth_getLogs',
  'eth_simulateV1',
  'trace_block',
  'trace_call',
  'trace_callMany',
  'trace_filter',
  'trace_get',
  'trace_rawTransaction',
  'trace_replayBlockTransactions',
  'trace_replayTransaction',
  'trace_transaction',
];

/**
 * Heavy methods added since, each declaring itself: debug_executionWitness executes a whole block;
 * Otterscan's transaction methods replay the transaction's block (ots_search* and the lookups read
 * the address history: cheap).
 */
const HEAVY_SINCE = ['debug_executionWitness', 'ots_getInternalOperations', 'ots_getTransactionError', 'ots_traceTransaction'];
const HEAVY = [...HEAVY_BY_THE_OLD_NAME_RULE, ...HEAVY_SINCE].sort();

const TABLES: ReadonlyArray<readonly [string, MethodTable<unknown>]> = [
  ['ethereum', ethereumMethods as MethodTable<unknown>],
  ['starknet', starknetMethods as MethodTable<unknown>],
];

/** Every name of both tables whose definition declares `test`. */
function declared(test: (cost: string, evm: boolean) => boolean): string[] {
  return TABLES.flatMap(([, table]) => [...table.keys()].filter((name) => test(table.declaration(name).cost, table.declaration(name).evm))).sort();
}

describe('method cost declarations', () => {
  it('the methods declared heavy are exactly those the old name rule made heavy, and those added since', () => {
    expect(declared((cost) => cost === 'heavy')).toEqual(HEAVY);
  });

  it('every heavy method runs on the EVM workers but eth_getLogs, which scans blocks', () => {
    expect(declared((_cost, evm) => evm)).toEqual(HEAVY.filter((name) => name !== 'eth_getLogs'));
  });

  it('a trace or debug tracer method added later declares itself heavy too', () => {
    for (const [network, table] of TABLES) {
      for (const name of table.keys()) {
        if (name.startsWith('trace_') || name.startsWith('debug_trace'))
          expect(table.declaration(name), `${network} ${name}`).toEqual({ cost: 'heavy', evm: true });
      }
    }
  });

  it('every method declares the domain errors it may let through (raises; the compiler holds each name to the domain errors: EthereumRaises, StarknetRaises)', () => {
    const undeclared = TABLES.flatMap(([network, table]) => [...table].filter(([, def]) => !Array.isArray(def.raises)).map(([name]) => `${network} ${name}`));
    expect(undeclared).toEqual([]);
    expect(ethereumMethods.get('eth_call')?.raises).toContain('ExecutionFailedError');
    expect(ethereumMethods.get('eth_getBalance')?.raises).toContain('MissingTrieNodeError');
    expect(starknetMethods.get('starknet_getEvents')?.raises).toContain('InvalidContinuationTokenError');
  });

  it('a name the network does not serve is cheap', () => {
    expect(ethereumMethods.declaration('trace_nope')).toEqual({ cost: 'cheap', evm: false });
    expect(starknetMethods.declaration('eth_call')).toEqual({ cost: 'cheap', evm: false });
  });
});
