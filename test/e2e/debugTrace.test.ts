import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/chains.js';
import { type EthTestServer, startEthServer } from '../helpers/ethServer.js';
import { httpClient, type RpcClient } from '../helpers/rpcClient.js';

/**
 * debug_trace* options and errors on the execution-apis chain. The struct logs of its block 1
 * are geth's recorded answers (fixtures/execution-apis/debug_traceTransaction); other expected
 * values are computed by hand from the opcodes (gas from the yellow paper's fee schedule) or read
 * from the chain's receipts.
 */

/** Block 1's first transaction: a creation whose init code returns 47 bytes of runtime code. */
const CREATE_TX = '0xc1d605c6612a5fe84dc95810030bfe5b1d327652b381bc695e28f50d13b2b09e';
const RUNTIME = '0x60004381526020014681526020014181526020014881526020014481526020013281526020013481526020016000f3';
const TARGET = '0x00000000000000000000000000000000000c0de0';
/** PUSH1 42, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN: returns the word 42. */
const RETURN_42 = '0x602a60005260206000f3';
/** NUMBER, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN: returns the block number. */
const RETURN_NUMBER = '0x4360005260206000f3';
/** JUMPDEST, PUSH1 0, JUMP: loops until the gas runs out. */
const LOOP = '0x5b600056';

let server: EthTestServer;
let client: RpcClient;
beforeAll(async () => {
  server = await startEthServer(join(FIXTURES, 'execution-apis'));
  client = httpClient(server.url, server.key);
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

const call = (method: string, params: unknown[]) => client.call(method, params);
const result = async (method: string, params: unknown[]) => {
  const answer = await call(method, params);
  if (answer.error) throw new Error(JSON.stringify(answer.error));
  return answer.result as Record<string, unknown>;
};

describe('debug_traceTransaction options', () => {
  it('limit stops the struct logs once their JSON passes it, as geth (1 byte: one entry)', async () => {
    const full = await result('debug_traceTransaction', [CREATE_TX]);
    const cut = await result('debug_traceTransaction', [CREATE_TX, { limit: 1 }]);
    expect((full.structLogs as unknown[]).length).toBe(9);
    expect(cut).toEqual({ ...full, structLogs: (full.structLogs as unknown[]).slice(0, 1) });
  });

  it('disableStack drops the stacks', async () => {
    const got = await result('debug_traceTransaction', [CREATE_TX, { disableStack: true }]);
    const logs = got.structLogs as Array<Record<string, unknown>>;
    expect(logs.map((l) => l.op)).toEqual(['PUSH1', 'CODESIZE', 'SUB', 'DUP1', 'PUSH1', 'PUSH1', 'CODECOPY', 'PUSH1', 'RETURN']);
    expect(logs.some((l) => 'stack' in l)).toBe(false);
  });

  it('callTracer: the creation as one CREATE frame (gas: the transaction’s, gasUsed: the receipt’s)', async () => {
    const tx = await result('eth_getTransactionByHash', [CREATE_TX]);
    const receipt = await result('eth_getTransactionReceipt', [CREATE_TX]);
    expect(await result('debug_traceTransaction', [CREATE_TX, { tracer: 'callTracer' }])).toEqual({
      type: 'CREATE',
      from: tx.from,
      to: receipt.contractAddress,
      gas: tx.gas,
      gasUsed: '0x102d3', // 66259, as the receipt and geth's struct-log answer
      input: tx.input,
      output: RUNTIME,
      value: tx.value,
    });
    expect(receipt.gasUsed).toBe('0x102d3');
  });

  it('4byteTracer: a creation has no selector; prestateTracer names the sender, the coinbase and the created contract only when it existed', async () => {
    expect(await result('debug_traceTransaction', [CREATE_TX, { tracer: '4byteTracer' }])).toEqual({});
    const pre = await result('debug_traceTransaction', [CREATE_TX, { tracer: 'prestateTracer' }]);
    const tx = await result('eth_getTransactionByHash', [CREATE_TX]);
    // The sender (nonce 0 before: no nonce field); the coinbase 0x0 and the new contract did not exist.
    const balance = await result('eth_getBalance', [tx.from, '0x0']);
    expect(pre).toEqual({ [tx.from as string]: { balance } });
  });
});

describe('debug_traceCall', () => {
  it('struct logs of code put in place by a state override, computed by hand', async () => {
    const got = await result('debug_traceCall', [{ to: TARGET }, 'latest', { stateOverrides: { [TARGET]: { code: RETURN_42 } } }]);
    const logs = got.structLogs as Array<{ op: string; gasCost: number; gas: number; pc: number }>;
    expect(logs.map((l) => [l.pc, l.op, l.gasCost])).toEqual([
      [0, 'PUSH1', 3],
      [2, 'PUSH1', 3],
      [4, 'MSTORE', 6], // 3 + one word of memory (3)
      [5, 'PUSH1', 3],
      [7, 'PUSH1', 3],
      [9, 'RETURN', 0],
    ]);
    for (let i = 1; i < logs.length; i++) expect(logs[i].gas).toBe(logs[i - 1].gas - logs[i - 1].gasCost);
    expect(got.gas).toBe(21_000 + 18);
    expect(got.failed).toBe(false);
    expect(got.returnValue).toBe(`0x${'2a'.padStart(64, '0')}`);
  });

  it('a CALL costs the access and the gas handed over; the callee logs at depth 2, its running off the end as STOP; return data follows the call', async () => {
    const CALLEE = '0x00000000000000000000000000000000000ca11e';
    // PUSH1 0 ×5 (retSize, retOffset, argsSize, argsOffset, value), PUSH20 callee, GAS, CALL, STOP
    const caller = `0x6000600060006000600073${CALLEE.slice(2)}5af100`;
    for (const [callee, calleeOps, calleeGas] of [
      [RETURN_42, ['PUSH1', 'PUSH1', 'MSTORE', 'PUSH1', 'PUSH1', 'RETURN'], 18],
      ['0x6001', ['PUSH1', 'STOP'], 3], // PUSH1 1, then past the end: geth's STOP
    ] as const) {
      const got = await result('debug_traceCall', [
        { to: TARGET },
        'latest',
        { enableReturnData: true, stateOverrides: { [TARGET]: { code: caller }, [CALLEE]: { code: callee } } },
      ]);
      const logs = got.structLogs as Array<{ pc: number; op: string; gas: number; gasCost: number; depth: number; stack: string[]; returnData?: string }>;
      const at = logs.findIndex((l) => l.op === 'CALL');
      const g = logs[at].gas;
      // Cold callee: 2600 (EIP-2929); all but a 64th of the rest goes to the callee (EIP-150).
      const available = g - 2600;
      const handed = available - Math.floor(available / 64);
      expect(logs[at].gasCost).toBe(2600 + handed);
      const inner = logs.slice(at + 1, at + 1 + calleeOps.length);
      expect(inner.map((l) => [l.op, l.depth])).toEqual(calleeOps.map((op) => [op, 2]));
      expect(inner[0].gas).toBe(handed);
      const last = logs[at + 1 + calleeOps.length];
      expect(last).toEqual({
        pc: 33,
        op: 'STOP',
        gas: g - 2600 - calleeGas,
        gasCost: 0,
        depth: 1,
        stack: ['0x1'],
        ...(calleeGas === 18 ? { returnData: `0x${'2a'.padStart(64, '0')}` } : {}),
      });
      expect(logs).toHaveLength(at + 2 + calleeOps.length);
      // 5 PUSH1, PUSH20, GAS: 3·6 + 2 before the CALL.
      expect(got.gas).toBe(21_000 + 20 + 2600 + calleeGas);
    }
  });

  it('callTracer: a CALL whose value the caller cannot pay is a frame with geth’s error and no gas used', async () => {
    const CALLEE = '0x00000000000000000000000000000000000ca11e';
    // PUSH1 0 ×4 (retSize, retOffset, argsSize, argsOffset), PUSH1 1 (value), PUSH20 callee, GAS, CALL, STOP
    const caller = `0x600060006000600060017300000000000000000000000000000000000ca11e5af100`;
    const overrides = { stateOverrides: { [TARGET]: { code: caller, balance: '0x0' }, [CALLEE]: { code: RETURN_42 } } };
    const logs = (await result('debug_traceCall', [{ to: TARGET }, 'latest', overrides])).structLogs as Array<{ op: string; gasCost: number }>;
    // CALL's cost: cold access 2600, value transfer 9000, and the gas it would hand over.
    const handed = logs.find((l) => l.op === 'CALL')!.gasCost - 2600 - 9000;
    const got = await result('debug_traceCall', [{ to: TARGET }, 'latest', { ...overrides, tracer: 'callTracer' }]);
    expect(got.calls).toEqual([
      {
        type: 'CALL',
        from: TARGET,
        to: CALLEE,
        gas: `0x${(handed + 2300).toString(16)}`, // with the value stipend, as geth
        gasUsed: '0x0',
        input: '0x',
        error: 'insufficient balance for transfer',
        value: '0x1',
      },
    ]);
    expect(got.error).toBeUndefined();
  });

  it('block overrides reach the EVM (NUMBER)', async () => {
    const got = await result('debug_traceCall', [
      { to: TARGET },
      'latest',
      { tracer: 'callTracer', stateOverrides: { [TARGET]: { code: RETURN_NUMBER } }, blockOverrides: { number: '0x1234' } },
    ]);
    expect(got.output).toBe(`0x${'1234'.padStart(64, '0')}`);
    expect(got.type).toBe('CALL');
  });

  it('timeout: a loop is stopped with geth’s error', async () => {
    const answer = await call('debug_traceCall', [
      { to: TARGET },
      'latest',
      { tracer: 'callTracer', timeout: '100ms', stateOverrides: { [TARGET]: { code: LOOP } } },
    ]);
    expect(answer.error).toEqual({ code: -32000, message: 'execution timeout' });
  });

  it('prestateTracer diffMode of a paying call: the sender pays gas used × price, the coinbase gets the tip above the base fee', async () => {
    const SENDER = '0x00000000000000000000000000000000005e4de7';
    const price = 1_000_000_000n;
    const funds = 10n ** 18n;
    const latest = await result('eth_getBlockByNumber', ['latest', false]);
    const baseFee = BigInt(latest.baseFeePerGas as string);
    const coinbase = latest.miner as string;
    const minerBefore = BigInt((await result('eth_getBalance', [coinbase, 'latest'])) as unknown as string);
    const got = (await result('debug_traceCall', [
      { from: SENDER, to: TARGET, gasPrice: `0x${price.toString(16)}`, gas: '0x186a0' },
      'latest',
      {
        tracer: 'prestateTracer',
        tracerConfig: { diffMode: true },
        stateOverrides: { [SENDER]: { balance: `0x${funds.toString(16)}` }, [TARGET]: { code: RETURN_42 } },
      },
    ])) as { pre: Record<string, unknown>; post: Record<string, unknown> };
    const used = 21_018n; // 21,000 + the six opcodes of RETURN_42 (18)
    const hex = (v: bigint) => `0x${v.toString(16)}`;
    expect(got.post).toEqual({
      [SENDER]: { balance: hex(funds - used * price), nonce: 1 },
      [coinbase]: { balance: hex(minerBefore + used * (price - baseFee)) },
    });
    expect(got.pre).toEqual({
      [SENDER]: { balance: hex(funds) },
      ...(minerBefore > 0n ? { [coinbase]: { balance: hex(minerBefore) } } : {}),
    });
  });

  it('the block is required, as geth’s (a struct, not a pointer)', async () => {
    expect((await call('debug_traceCall', [{ to: TARGET }])).error).toEqual({ code: -32602, message: 'missing value for required argument 1' });
  });

  it('pending is refused as geth refuses it', async () => {
    expect((await call('debug_traceCall', [{ to: TARGET }, 'pending'])).error).toEqual({ code: -32000, message: 'tracing on top of pending is not supported' });
  });
});

describe('debug_trace* errors', () => {
  const cases: Array<[string, unknown, { code: number; message: string }]> = [
    ['a malformed timeout', { timeout: 'abc' }, { code: -32000, message: 'time: invalid duration "abc"' }],
    ['a timeout without unit', { timeout: '10' }, { code: -32000, message: 'time: missing unit in duration "10"' }],
    ['a timeout of 0', { timeout: '0s' }, { code: -32000, message: 'execution timeout' }],
    [
      'a tracer of the wrong type',
      { tracer: 5 },
      { code: -32602, message: 'invalid argument 1: json: cannot unmarshal number into Go struct field TraceConfig.tracer of type string' },
    ],
    [
      'a flag of the wrong type',
      { disableStack: 'yes' },
      { code: -32602, message: 'invalid argument 1: json: cannot unmarshal string into Go struct field TraceConfig.disableStack of type bool' },
    ],
    [
      'a tracer config flag of the wrong type',
      { tracer: 'callTracer', tracerConfig: { onlyTopCall: 1 } },
      { code: -32000, message: 'json: cannot unmarshal number into Go struct field callTracerConfig.onlyTopCall of type bool' },
    ],
    [
      'diffMode with includeEmpty',
      { tracer: 'prestateTracer', tracerConfig: { diffMode: true, includeEmpty: true } },
      { code: -32000, message: 'cannot use diffMode with includeEmpty' },
    ],
  ];
  for (const [name, config, error] of cases) {
    it(name, async () => {
      expect((await call('debug_traceTransaction', [CREATE_TX, config])).error).toEqual(error);
    });
  }

  it('JavaScript tracers and unknown names are refused with -32000', async () => {
    const js = await call('debug_traceTransaction', [CREATE_TX, { tracer: '{data: [], step: function(log) {}, result: function() { return this.data; }}' }]);
    expect(js.error?.code).toBe(-32000);
    expect(js.error?.message).toMatch(/^JavaScript tracers are not supported/);
    const unknown = await call('debug_traceTransaction', [CREATE_TX, { tracer: 'flatCallTracer' }]);
    expect(unknown.error?.code).toBe(-32000);
    expect(unknown.error?.message).toMatch(/^tracer not found: "flatCallTracer"/);
  });
});
