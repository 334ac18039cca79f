import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readIoCases } from '../../test/conformance/ioFiles.js';
import { FIXTURES, importFixtureChain, tempDir } from '../../test/helpers/chains.js';
import { testConfig } from '../../test/helpers/testConfig.js';
import type { EthereumChain } from '../chain/open.js';
import { bigIntToData32, bigIntToQuantity } from '../codec/hex.js';
import { createEthContext, type EthContext } from '../methods/context.js';
import { ethereumMethods } from '../methods/ethereum.js';
import { RpcError } from '../rpc/errors.js';

/**
 * eth_call / eth_estimateGas against the execution-apis test chain (54 blocks, Frontier → BPO2),
 * imported once into a temporary datadir. Expected values come from the execution-apis fixtures
 * (geth's answers) or are computed by hand in the comments next to them.
 */

const FIXTURE = join(FIXTURES, 'execution-apis');
const methods = ethereumMethods;

let chain: EthereumChain;
let ctx: EthContext;
let cleanup: () => void;

beforeAll(async () => {
  const tmp = tempDir('tracenode-call-');
  cleanup = tmp.cleanup;
  chain = await importFixtureChain(FIXTURE, tmp.dir);
  ctx = await createEthContext(chain, 'test', testConfig());
});

afterAll(async () => {
  await chain?.close();
  cleanup?.();
});

type Wire = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** Calls a method the way the dispatcher does (domain errors through the table's mapping) and returns the wire `result` or `error`. */
async function rpc(method: string, params: unknown): Promise<Wire> {
  try {
    return { result: await methods.get(method)!.call(ctx, params) };
  } catch (err) {
    const wire = err instanceof RpcError ? err : methods.mapError?.(err);
    if (wire) return { error: wire.toJSON() };
    throw err;
  }
}

// Contracts and accounts of the test chain (genesis.json alloc).
/** Counter: each call stores keccak(calldata) → counter and increments slot 0; returns nothing. */
const COUNTER = '0x7dcd17433742f4c0ca53122ab541d0ba67fc27df';
/** hive's callenv: returns number, chainid, coinbase, basefee, difficulty, origin, callvalue. */
const CALLENV = '0x9344b07175800259691961298ca11c824e65032d';
/** Returns 0xffee for input 0xff01, reverts with "wrong-calldata…" otherwise. */
const CONTRACT = '0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667';
/** An address with no account and no letters (its EIP-55 form is itself). */
const NOBODY = '0x1111111111111111111111111111111111111111';
const ZERO = '0x0000000000000000000000000000000000000000';

// Hand-assembled runtime code.
/** SLOAD(0) → return 32 bytes: 60 00 54 60 00 52 60 20 60 00 f3 */
const READ_SLOT0 = '0x60005460005260206000f3';
/** TIMESTAMP → return 32 bytes. */
const READ_TIMESTAMP = '0x4260005260206000f3';
/** NUMBER → return 32 bytes. */
const READ_NUMBER = '0x4360005260206000f3';
/** SELFBALANCE of the caller? No: BALANCE(CALLER) → return 32 bytes. */
const READ_CALLER_BALANCE = '0x333160005260206000f3';

describe('execution-apis conformance', () => {
  const cases = readIoCases(FIXTURE, ['eth_call', 'eth_estimateGas']);

  it('has the six eth_call and six eth_estimateGas cases', () => {
    expect(cases.filter((c) => c.method === 'eth_call')).toHaveLength(6);
    expect(cases.filter((c) => c.method === 'eth_estimateGas')).toHaveLength(6);
  });

  for (const c of cases) {
    it(`${c.method}/${c.file}`, async () => {
      for (const ex of c.exchanges) {
        const req = JSON.parse(ex.request);
        const want = JSON.parse(ex.response);
        const got = await rpc(req.method, req.params);
        expect({ jsonrpc: '2.0', id: req.id, ...got }).toEqual(want);
      }
    });
  }

  it('estimate-successful-call.io (speconly) by hand: the call needs 21104, geth’s search says 21270', async () => {
    // 21000 + 2 non-zero bytes · 16 = 21032 intrinsic + 72 execution = 21104; 21103 runs out of gas.
    const base = { from: '0x0102030000000000000000000000000000000000', input: '0xff01', to: CONTRACT };
    expect(await rpc('eth_call', [{ ...base, gas: bigIntToQuantity(21104n) }, 'latest'])).toEqual({ result: '0xffee' });
    expect(await rpc('eth_call', [{ ...base, gas: bigIntToQuantity(21103n) }, 'latest'])).toEqual({
      error: { code: -32000, message: 'out of gas' },
    });
    // geth: lo = 21103, optimistic (21104+2300)·64/63 = 23775 passes, then mids 22439, 21771,
    // 21437, 21270; (21270-21103)/21270 < 1.5% stops the search at hi = 21270 = 0x5316.
    expect(await rpc('eth_estimateGas', [base])).toEqual({ result: '0x5316' });
  });
});

describe('eth_call', () => {
  it('default block is latest (geth), and a missing block is `header not found`', async () => {
    const call = { to: CALLENV };
    const latest = await rpc('eth_call', [call, 'latest']);
    expect(await rpc('eth_call', [call])).toEqual(latest);
    expect(await rpc('eth_call', [call, null])).toEqual(latest);
    expect(await rpc('eth_call', [call, '0x37'])).toEqual({ error: { code: -32000, message: 'header not found' } });
  });

  it('runs in the context of an old block: callenv reports that block', async () => {
    const got = (await rpc('eth_call', [{ to: CALLENV }, '0x2a'])) as { result: string };
    const words = got.result.slice(2).match(/.{64}/g)!;
    expect(BigInt(`0x${words[0]}`)).toBe(42n); // NUMBER
    expect(BigInt(`0x${words[1]}`)).toBe(0xc72dd9d5e883en); // CHAINID
    expect(BigInt(`0x${words[3]}`)).toBe(0n); // BASEFEE: 0 without fee fields (geth NoBaseFee)
  });

  it('reads the state of an old block: the counter slot is older there', async () => {
    // Keep the counter's storage, swap its code for "return SLOAD(0)". eth_getStorageAt shows
    // slot 0 = 0x38 at the head (execution-apis get-storage.io); it was 6 after block 10.
    const override = { [COUNTER]: { code: READ_SLOT0 } };
    expect(await rpc('eth_call', [{ to: COUNTER }, 'latest', override])).toEqual({ result: bigIntToData32(0x38n) });
    expect(await rpc('eth_call', [{ to: COUNTER }, '0xa', override])).toEqual({ result: bigIntToData32(6n) });
    expect(await rpc('eth_call', [{ to: COUNTER }, '0x1', override])).toEqual({ result: bigIntToData32(0n) });
  });

  it('state override: code + stateDiff change the result, and apply to that call only', async () => {
    const slot0 = `0x${'0'.repeat(64)}`;
    const override = { [COUNTER]: { code: READ_SLOT0, stateDiff: { [slot0]: bigIntToData32(7n) } } };
    expect(await rpc('eth_call', [{ to: COUNTER }, 'latest', override])).toEqual({ result: bigIntToData32(7n) });
    // `state` replaces all storage: an unlisted slot reads 0
    const replaced = { [COUNTER]: { code: READ_SLOT0, state: {} } };
    expect(await rpc('eth_call', [{ to: COUNTER }, 'latest', replaced])).toEqual({ result: bigIntToData32(0n) });
    // balance override, read by BALANCE(CALLER) from an account that has nothing
    const rich = { [NOBODY]: { balance: '0x1234' }, [COUNTER]: { code: READ_CALLER_BALANCE } };
    expect(await rpc('eth_call', [{ from: NOBODY, to: COUNTER }, 'latest', rich])).toEqual({ result: bigIntToData32(0x1234n) });
    // nothing persisted: the counter's real code still returns nothing
    expect(await rpc('eth_call', [{ to: COUNTER }, 'latest'])).toEqual({ result: '0x' });
    expect(await ctx.state.storage((await chain.store.headerByNumber(54n))!.stateRoot, hex(COUNTER), new Uint8Array(32))).toEqual(Uint8Array.from([0x38]));
  });

  it('state override: state and stateDiff together is geth’s error', async () => {
    const both = { [NOBODY]: { state: {}, stateDiff: {} } };
    expect(await rpc('eth_call', [{ to: NOBODY }, 'latest', both])).toEqual({
      error: { code: -32000, message: `account ${NOBODY} has both 'state' and 'stateDiff'` },
    });
  });

  it('state override: movePrecompileToAddress moves identity (0x04)', async () => {
    const identity = '0x0000000000000000000000000000000000000004';
    const moved = { [identity]: { movePrecompileToAddress: NOBODY } };
    expect(await rpc('eth_call', [{ to: NOBODY, input: '0xabcd' }, 'latest', moved])).toEqual({ result: '0xabcd' });
    // the old address is an empty account now
    expect(await rpc('eth_call', [{ to: identity, input: '0xabcd' }, 'latest', moved])).toEqual({ result: '0x' });
    expect(await rpc('eth_call', [{ to: NOBODY }, 'latest', { [NOBODY]: { movePrecompileToAddress: ZERO } }])).toEqual({
      error: { code: -32000, message: `account ${NOBODY} is not a precompile` },
    });
  });

  it('block overrides: number and time, read by callenv and by TIMESTAMP', async () => {
    const got = (await rpc('eth_call', [{ to: CALLENV }, 'latest', null, { number: '0x1000', feeRecipient: NOBODY }])) as { result: string };
    const words = got.result.slice(2).match(/.{64}/g)!;
    expect(BigInt(`0x${words[0]}`)).toBe(0x1000n);
    expect(`0x${words[2].slice(24)}`).toBe(NOBODY);
    const code = { [NOBODY]: { code: READ_TIMESTAMP } };
    expect(await rpc('eth_call', [{ to: NOBODY }, 'latest', code, { time: '0x12345' }])).toEqual({ result: bigIntToData32(0x12345n) });
    // the head's own timestamp (540) without the override
    expect(await rpc('eth_call', [{ to: NOBODY }, 'latest', code])).toEqual({ result: bigIntToData32(540n) });
    expect(await rpc('eth_call', [{ to: NOBODY }, 'latest', code, { beaconRoot: `0x${'00'.repeat(32)}` }])).toEqual({
      error: { code: -32000, message: 'block override "beaconRoot" is not supported for this RPC method' },
    });
  });

  it('BLOCKHASH: ancestors from the chain store, zero for the block itself and later', async () => {
    // PUSH1 n BLOCKHASH PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
    const blockhash = (n: number) => ({ [NOBODY]: { code: `0x60${n.toString(16).padStart(2, '0')}4060005260206000f3` } });
    const block53 = '0x1c40cb1eae4d15a808b06f18145f4585fd6d45244b332853bd695e62e6990454'; // chain-summary.ndjson
    expect(await rpc('eth_call', [{ to: NOBODY }, 'latest', blockhash(53)])).toEqual({ result: block53 });
    expect(await rpc('eth_call', [{ to: NOBODY }, 'latest', blockhash(54)])).toEqual({ result: bigIntToData32(0n) });
    expect(await rpc('eth_call', [{ to: NOBODY }, '0x35', blockhash(53)])).toEqual({ result: bigIntToData32(0n) });
    // a number override widens the window, but blocks from the call's own block on stay zero (geth)
    expect(await rpc('eth_call', [{ to: NOBODY }, '0x35', blockhash(54), { number: '0x40' }])).toEqual({ result: bigIntToData32(0n) });
    expect(await rpc('eth_call', [{ to: NOBODY }, 'latest', blockhash(53), { number: '0x40' }])).toEqual({ result: block53 });
  });

  it('contract creation returns the deployed runtime code', async () => {
    // initcode: PUSH11 <READ_SLOT0> PUSH1 0 MSTORE PUSH1 11 PUSH1 21 RETURN
    const initcode = `0x6a${READ_SLOT0.slice(2)}600052600b6015f3`;
    expect(await rpc('eth_call', [{ from: NOBODY, input: initcode }, 'latest'])).toEqual({ result: READ_SLOT0 });
    expect(await rpc('eth_call', [{ data: initcode }, '0x5'])).toEqual({ result: READ_SLOT0 });
  });

  it('value above the balance: geth’s insufficient-funds text', async () => {
    // No fee fields: the check is balance ≥ value; supplied gas is the cap, 10 × 200,000,000.
    expect(await rpc('eth_call', [{ from: NOBODY, to: ZERO, value: '0x64' }, 'latest'])).toEqual({
      error: {
        code: -32000,
        message: `err: insufficient funds for gas * price + value: address ${NOBODY} have 0 want 100 (supplied gas 2000000000)`,
      },
    });
    // With fee fields the balance must cover gas × maxFeePerGas + value:
    // 30000 × 33554432 + 1 = 1006632960001
    const rich = { [NOBODY]: { balance: '0xea60' } };
    const fees = { from: NOBODY, to: ZERO, value: '0x1', gas: '0x7530', maxPriorityFeePerGas: '0x0' };
    expect(await rpc('eth_call', [{ ...fees, maxFeePerGas: '0x2000000' }, 'latest', rich])).toEqual({
      error: {
        code: -32000,
        message: `err: insufficient funds for gas * price + value: address ${NOBODY} have 60000 want 1006632960001 (supplied gas 30000)`,
      },
    });
    // and the fee cap must reach the block's base fee (27399063 at block 54)
    expect(await rpc('eth_call', [{ ...fees, maxFeePerGas: '0x2' }, 'latest', rich])).toEqual({
      error: {
        code: -32000,
        message: `err: max fee per gas less than block base fee: address ${NOBODY}, maxFeePerGas: 2, baseFee: 27399063 (supplied gas 30000)`,
      },
    });
  });

  it('intrinsic gas too low, then the EIP-7623 floor (Prague+)', async () => {
    // 0xff01: two non-zero bytes → 21000 + 2·16 = 21032; floor 21000 + 10·(2·4) = 21080
    const call = { to: CONTRACT, input: '0xff01' };
    expect(await rpc('eth_call', [{ ...call, gas: '0x5208' }, 'latest'])).toEqual({
      error: { code: -32000, message: 'err: intrinsic gas too low: have 21000, want 21032 (supplied gas 21000)' },
    });
    expect(await rpc('eth_call', [{ ...call, gas: bigIntToQuantity(21050n) }, 'latest'])).toEqual({
      error: { code: -32000, message: 'err: intrinsic gas too low: have 21050, want 21080 (supplied gas 21050)' },
    });
    // before Prague (block 44 is Cancun) there is no floor: 21050 is enough to start
    expect(await rpc('eth_call', [{ ...call, gas: bigIntToQuantity(21050n) }, '0x2c'])).toEqual({
      error: { code: -32000, message: 'out of gas' },
    });
  });

  it('a gas above the cap is lowered to the cap', async () => {
    const code = { [NOBODY]: { code: '0x5a60005260206000f3' } }; // GAS → return
    const got = (await rpc('eth_call', [{ to: NOBODY, gas: '0xffffffffffff' }, 'latest', code])) as { result: string };
    // cap 2,000,000,000 − 21000 intrinsic − 2 (the GAS opcode itself)
    expect(BigInt(got.result)).toBe(2_000_000_000n - 21_000n - 2n);
  });

  it('EVM failures get geth’s -32000 texts; reverts are code 3 with data', async () => {
    const run = (code: string) => rpc('eth_call', [{ to: NOBODY, gas: '0x186a0' }, 'latest', { [NOBODY]: { code } }]);
    expect(await run('0xfe')).toEqual({ error: { code: -32000, message: 'invalid opcode: INVALID' } });
    expect(await run('0xef')).toEqual({ error: { code: -32000, message: 'invalid opcode: opcode 0xef not defined' } });
    expect(await run('0x01')).toEqual({ error: { code: -32000, message: 'stack underflow (0 <=> 2)' } });
    expect(await run('0x600056')).toEqual({ error: { code: -32000, message: 'invalid jump destination' } });
    expect(await run('0x5b600056')).toEqual({ error: { code: -32000, message: 'out of gas' } });
    expect(await run('0x600160005500')).toEqual({ result: '0x' }); // SSTORE in a plain call is fine
    // empty revert: data "0x"; custom error 0xdeadbeef: no reason, raw data
    expect(await run('0x60006000fd')).toEqual({ error: { code: 3, message: 'execution reverted', data: '0x' } });
    expect(await run('0x63deadbeef6000526004601cfd')).toEqual({ error: { code: 3, message: 'execution reverted', data: '0xdeadbeef' } });
    // 1025 pushes: PUSH1 0 JUMPDEST PUSH1 0 PUSH1 2 JUMP → loops pushing until the stack is full
    expect(await run('0x60005b6000600256')).toEqual({ error: { code: -32000, message: 'stack limit reached 1024 (1023)' } });
  });

  it('params: data and input that differ are -32602', async () => {
    const got = await rpc('eth_call', [{ to: CONTRACT, data: '0x01', input: '0x02' }, 'latest']);
    expect(got).toEqual({
      error: {
        code: -32602,
        message: 'invalid argument 0: both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
      },
    });
    // equal is fine; data alone is the legacy alias of input
    expect(await rpc('eth_call', [{ to: CONTRACT, data: '0xff01', input: '0xff01' }, 'latest'])).toEqual({ result: '0xffee' });
    expect(await rpc('eth_call', [{ to: CONTRACT, data: '0xff01' }, 'latest'])).toEqual({ result: '0xffee' });
  });

  it('params: decode errors name the argument and field; keys match case-insensitively', async () => {
    expect(await rpc('eth_call', ['0x1234', 'latest'])).toEqual({
      error: { code: -32602, message: 'invalid argument 0: json: cannot unmarshal string into Go value of type ethapi.TransactionArgs' },
    });
    expect(await rpc('eth_call', [{ to: '0x12' }, 'latest'])).toEqual({
      error: { code: -32602, message: 'invalid argument 0: to: hex string has length 2, want 40 for common.Address' },
    });
    expect(await rpc('eth_call', [{ to: CONTRACT, gas: '0x01' }, 'latest'])).toEqual({
      error: { code: -32602, message: 'invalid argument 0: gas: hex number with leading zero digits' },
    });
    expect(await rpc('eth_call', [{ To: CONTRACT, INPUT: '0xff01', from: null, value: null }, 'latest'])).toEqual({ result: '0xffee' });
    expect(await rpc('eth_call', [{ to: CONTRACT }, 'latest', { [CONTRACT]: { balance: 'x' } }])).toEqual({
      error: { code: -32602, message: `invalid argument 2: ${CONTRACT}.balance: hex string without 0x prefix` },
    });
    expect(await rpc('eth_call', [{ to: CONTRACT }, 'latest', null, { time: 5 }])).toEqual({
      error: { code: -32602, message: 'invalid argument 3: time: json: cannot unmarshal number into Go value of type hexutil.Uint64' },
    });
    // the older override names (coinbase, random, baseFee) are accepted too
    const got = (await rpc('eth_call', [{ to: CALLENV, gasPrice: '0x7' }, 'latest', null, { coinbase: NOBODY, baseFee: '0x5' }])) as { result: string };
    const words = got.result.slice(2).match(/.{64}/g)!;
    expect(`0x${words[2].slice(24)}`).toBe(NOBODY);
    expect(BigInt(`0x${words[3]}`)).toBe(5n); // BASEFEE: overridden, not zeroed (gasPrice 7 is paid)
  });

  it('params: gasPrice together with 1559 fees, and a wrong chainId', async () => {
    expect(await rpc('eth_call', [{ to: CONTRACT, gasPrice: '0x1', maxFeePerGas: '0x1' }, 'latest'])).toEqual({
      error: { code: -32000, message: 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified' },
    });
    expect(await rpc('eth_call', [{ to: CONTRACT, chainId: '0x1' }, 'latest'])).toEqual({
      error: { code: -32000, message: "chainId does not match node's (have=1, want=3503995874084926)" },
    });
  });

  it('EIP-7702 authorizations in the call object install a delegation for the call', async () => {
    // signed by viem (independent of the engine's recovery); the authority has no account yet
    const signer = privateKeyToAccount(`0x${'42'.repeat(32)}`);
    const auth = await signer.signAuthorization({ chainId: 3503995874084926, address: CONTRACT, nonce: 0 });
    const authorizationList = [
      { chainId: '0xc72dd9d5e883e', address: CONTRACT, nonce: '0x0', yParity: bigIntToQuantity(BigInt(auth.yParity!)), r: auth.r, s: auth.s },
    ];
    const to = signer.address.toLowerCase();
    expect(await rpc('eth_call', [{ to, input: '0xff01', authorizationList }, 'latest'])).toEqual({ result: '0xffee' });
    // without it the authority is an empty account
    expect(await rpc('eth_call', [{ to, input: '0xff01' }, 'latest'])).toEqual({ result: '0x' });
    // a wrong nonce makes the authorization invalid: skipped, as geth does
    const stale = [{ ...authorizationList[0], nonce: '0x1' }];
    expect(await rpc('eth_call', [{ to, input: '0xff01', authorizationList: stale }, 'latest'])).toEqual({ result: '0x' });
    expect(await rpc('eth_call', [{ input: '0xff01', authorizationList }, 'latest'])).toEqual({
      error: { code: -32000, message: `err: EIP-7702 transaction cannot be used to create contract (sender ${ZERO}) (supplied gas 2000000000)` },
    });
  });

  it('concurrent calls at different blocks each get their own answer', async () => {
    const override = { [COUNTER]: { code: READ_SLOT0 } };
    const blocks = [1n, 10n, 20n, 54n, 30n, 2n, 45n, 10n];
    const want = [0n, 6n, 13n, 0x38n, 24n, 1n, 43n, 6n];
    const got = await Promise.all(Array.from({ length: 4 }, () => blocks.map((b) => rpc('eth_call', [{ to: COUNTER }, bigIntToQuantity(b), override]))).flat());
    expect(got).toEqual(Array.from({ length: 4 }, () => want.map((v) => ({ result: bigIntToData32(v) }))).flat());
    const numbers = await Promise.all(blocks.map((b) => rpc('eth_call', [{ to: NOBODY }, bigIntToQuantity(b), { [NOBODY]: { code: READ_NUMBER } }])));
    expect(numbers).toEqual(blocks.map((b) => ({ result: bigIntToData32(b) })));
  });
});

describe('eth_estimateGas', () => {
  it('a plain transfer is 21000', async () => {
    expect(await rpc('eth_estimateGas', [{ from: ZERO, to: NOBODY }])).toEqual({ result: '0x5208' });
  });

  it('a creation is estimated too', async () => {
    const initcode = `0x6a${READ_SLOT0.slice(2)}600052600b6015f3`;
    const got = (await rpc('eth_estimateGas', [{ from: NOBODY, input: initcode }])) as { result: string };
    // 53000 + 20 bytes of initcode (16 non-zero · 16 + 4 zero · 4) + 1 initcode word · 2, then
    // execution and 11 · 200 for the code deposit
    expect(BigInt(got.result)).toBeGreaterThan(53_000n + 272n + 2n + 2_200n);
    const at = (gas: bigint) => rpc('eth_call', [{ from: NOBODY, input: initcode, gas: bigIntToQuantity(gas) }, 'latest']);
    expect(await at(BigInt(got.result))).toEqual({ result: READ_SLOT0 });
  });

  it('never succeeding is `gas required exceeds allowance (<hi>)`', async () => {
    const loop = { [NOBODY]: { code: '0x5b600056' } };
    expect(await rpc('eth_estimateGas', [{ to: NOBODY, gas: '0x186a0' }, 'latest', loop])).toEqual({
      error: { code: -32000, message: 'gas required exceeds allowance (100000)' },
    });
  });

  it('a revert at the top is the code-3 error with the reason', async () => {
    expect(await rpc('eth_estimateGas', [{ to: '0x0ee3ab1371c93e7c0c281cc0c2107cdebc8b1930', input: '0x00' }])).toEqual({
      error: { code: 3, message: 'execution reverted: assert(false)', data: `0x4e487b71${'0'.repeat(63)}1` },
    });
  });

  it('other failures at the top keep geth’s text', async () => {
    expect(await rpc('eth_estimateGas', [{ to: NOBODY }, 'latest', { [NOBODY]: { code: '0xfe' } }])).toEqual({
      error: { code: -32000, message: 'invalid opcode: INVALID' },
    });
    expect(await rpc('eth_estimateGas', [{ from: NOBODY, to: ZERO, value: '0x1' }])).toEqual({
      error: {
        code: -32000,
        message: `failed with 16777216 gas: insufficient funds for gas * price + value: address ${NOBODY} have 0 want 1`,
      },
    });
  });
});

function hex(s: string): Uint8Array {
  return Uint8Array.from(Buffer.from(s.slice(2), 'hex'));
}
