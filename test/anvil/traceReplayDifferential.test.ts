import { readFileSync } from 'node:fs';
import { createCustomCommon, Mainnet } from '@ethereumjs/common';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bytesToHex, hexToBytes, privateToAddress } from '@ethereumjs/util';
import { expect, it } from 'vitest';
import { rawCall, rawResult as rpc, usePeerPair } from '../helpers/anvilPeer.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { type AccountDiff, stateDiffSteps } from '../helpers/stateDiffSteps.js';

const describeWithAnvil = describeWithFoundry(['anvil'], 'anvil differential tests (ad-hoc traces)');

/**
 * Ad-hoc Parity tracing against an independent peer, on the `traces` scenario of
 * scripts/anvilChain.ts mined on anvil and imported into tracenode (see traceDifferential.test.ts).
 *
 * Anvil 1.7.1 serves trace_replayBlockTransactions (with `trace` and `stateDiff`, reth's builder)
 * and none of trace_call, trace_callMany, trace_replayTransaction, trace_rawTransaction, trace_get
 * (-32601). So:
 * - trace_replayBlockTransactions of every block, both types, equals anvil's; the one allowance is
 *   the zero-value precompile calls anvil lists and tracenode omits (traceDifferential.test.ts);
 * - trace_replayTransaction of every transaction equals anvil's entry for it in its block, and its
 *   `trace` equals trace_transaction without the block and transaction fields;
 * - for every block with one transaction, the stateDiff is checked against the archive itself:
 *   each balance, nonce, code and storage delta equals eth_getBalance, eth_getTransactionCount,
 *   eth_getCode and eth_getStorageAt at blocks n-1 and n;
 * - trace_call of a mined transaction's call, at its parent block with the block's context as
 *   block overrides, equals that transaction's replay (trace and stateDiff);
 * - trace_callMany, trace_get and trace_rawTransaction against hand-computed values and the
 *   answers above.
 */
interface Trace {
  type: string;
  action: { to?: string; value?: string; callType?: string };
  traceAddress: number[];
  subtraces: number;
  [k: string]: unknown;
}
interface Replayed {
  output: string;
  stateDiff: Record<string, AccountDiff> | null;
  trace: Trace[];
  vmTrace: unknown;
  transactionHash?: string;
}

const isPrecompile = (a: string | undefined) => a !== undefined && /^0x0{38}(0[1-9a-f]|1[01])$/.test(a);

/** One transaction's traces without anvil's zero-value precompile calls (renumbered). */
function withoutZeroValuePrecompileCalls(traces: Trace[]): Trace[] {
  const drop = (t: Trace) => t.type === 'call' && isPrecompile(t.action.to) && BigInt(t.action.value ?? '0x0') === 0n;
  const renamed = new Map<string, number[]>([['', []]]);
  const childCount = new Map<string, number>();
  const kept: Array<{ t: Trace; addr: number[] }> = [];
  for (const t of traces) {
    const parentKey = t.traceAddress.slice(0, -1).join(',');
    const parentNew = renamed.get(parentKey);
    if (t.traceAddress.length > 0 && (parentNew === undefined || drop(t))) continue;
    let addr: number[] = [];
    if (t.traceAddress.length > 0) {
      const idx = childCount.get(parentKey) ?? 0;
      childCount.set(parentKey, idx + 1);
      addr = [...parentNew!, idx];
    }
    renamed.set(t.traceAddress.join(','), addr);
    kept.push({ t, addr });
  }
  return kept.map(({ t, addr }) => ({ ...t, traceAddress: addr, subtraces: childCount.get(t.traceAddress.join(',')) ?? 0 }));
}

const allowance = (r: Replayed): Replayed => ({ ...r, trace: withoutZeroValuePrecompileCalls(r.trace) });
const hex = (n: bigint | number) => `0x${n.toString(16)}`;

const peers = usePeerPair('traces');

/** The scenario's blocks and their transactions (from the generator's expected.json). */
function blocksWithTxs(): Array<{ number: number; txHashes: string[] }> {
  const expected = JSON.parse(readFileSync(peers().built.expectedPath, 'utf8')) as { blocks: Array<{ number: number; txHashes: string[] }> };
  return expected.blocks.filter((b) => b.txHashes.length > 0);
}

/** A trace_transaction trace without its location: what trace_replayTransaction lists. */
function unlocalized(t: Record<string, unknown>): Record<string, unknown> {
  const { blockHash: _h, blockNumber: _n, transactionHash: _t, transactionPosition: _p, ...rest } = t;
  return rest;
}

/** The scenario's funded account alice: its private key (expected.json) and address. */
function alice(): { key: string; address: string } {
  const expected = JSON.parse(readFileSync(peers().built.expectedPath, 'utf8')) as { keys: Record<string, string> };
  const key = expected.keys.alice!;
  return { key, address: bytesToHex(privateToAddress(hexToBytes(key as `0x${string}`))) };
}

describeWithAnvil('ad-hoc traces vs anvil on an anvil-mined chain', () => {
  it('trace_replayBlockTransactions (trace, stateDiff) of every block equals anvil’s', async () => {
    const head = peers().built.blocks.at(-1)!.number;
    let entries = 0;
    let accounts = 0;
    for (let n = 0; n <= head; n++) {
      for (const types of [['trace', 'stateDiff'], ['trace'], ['stateDiff']]) {
        const ours = (await rpc(peers().ours, 'trace_replayBlockTransactions', [hex(n), types])) as Replayed[];
        const theirs = ((await rpc(peers().theirs, 'trace_replayBlockTransactions', [hex(n), types])) as Replayed[]).map(allowance);
        expect(ours, `block ${n} ${types}`).toEqual(theirs);
        if (types.length === 2) {
          entries += ours.length;
          for (const r of ours) accounts += Object.keys(r.stateDiff ?? {}).length;
        }
      }
    }
    expect(entries).toBeGreaterThan(40);
    expect(accounts).toBeGreaterThan(100);
  });

  it('trace_replayTransaction of every transaction equals anvil’s block entry; its trace is trace_transaction’s', async () => {
    let txs = 0;
    for (const { number, txHashes } of blocksWithTxs()) {
      const theirs = (await rpc(peers().theirs, 'trace_replayBlockTransactions', [hex(number), ['trace', 'stateDiff']])) as Replayed[];
      for (const [i, hash] of txHashes.entries()) {
        const ours = (await rpc(peers().ours, 'trace_replayTransaction', [hash, ['trace', 'stateDiff']])) as Replayed;
        const { transactionHash, ...expected } = allowance(theirs[i]!);
        expect(transactionHash).toBe(hash);
        expect(ours, hash).toEqual(expected);
        const plain = (await rpc(peers().ours, 'trace_transaction', [hash])) as Array<Record<string, unknown>>;
        expect(ours.trace, hash).toEqual(plain.map(unlocalized));
        const traceOnly = (await rpc(peers().ours, 'trace_replayTransaction', [hash, ['trace']])) as Replayed;
        expect(traceOnly).toEqual({ ...ours, stateDiff: null });
        txs++;
      }
    }
    expect(txs).toBeGreaterThan(40);
  });

  it('stateDiffs of every block chain from the archive at block n-1 to the archive at block n', async () => {
    const ours = peers().ours;
    const read = async (what: string, address: string, slot: string | undefined, block: string) => {
      if (what === 'balance') return (await rpc(ours, 'eth_getBalance', [address, block])) as string;
      if (what === 'nonce') return (await rpc(ours, 'eth_getTransactionCount', [address, block])) as string;
      if (what === 'code') return (await rpc(ours, 'eth_getCode', [address, block])) as string;
      return (await rpc(ours, 'eth_getStorageAt', [address, slot, block])) as string;
    };
    let checked = 0;
    const kinds = new Set<string>();
    for (const { number } of blocksWithTxs()) {
      const entries = (await rpc(ours, 'trace_replayBlockTransactions', [hex(number), ['stateDiff']])) as Replayed[];
      // per account field (and storage slot): the known [before, after] of each transaction that changed it, in order
      const steps = stateDiffSteps(
        entries.map((e) => e.stateDiff),
        kinds,
      );
      for (const [key, list] of steps) {
        const [address, field, slot] = key.split(' ') as [string, string, string | undefined];
        const [pre, post] = [await read(field, address, slot, hex(number - 1)), await read(field, address, slot, hex(number))];
        // pre, before₁, after₁, before₂, after₂, …, post: each step starts where the previous ended,
        // the first at the archive's value at n-1, and the last ends at its value at n
        const told = [pre, ...list.flat(), post];
        const chained = [pre, ...list.flatMap(([, after], i) => [i === 0 ? pre : list[i - 1]![1], after]), list.at(-1)?.[1] ?? pre];
        expect(told, `${key} in block ${number}`).toEqual(chained);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
    // the scenario creates contracts, writes storage and moves value
    expect([...kinds].sort()).toEqual(expect.arrayContaining(['balance*', 'balance+', 'code+', 'nonce*', 'nonce+', 'storage*', 'storage+']));
  });

  it('trace_call of each block’s first transaction, at its parent with the block’s context, equals its replay', async () => {
    const ours = peers().ours;
    let calls = 0;
    for (const { number, txHashes } of blocksWithTxs()) {
      const hash = txHashes[0]!;
      const tx = (await rpc(ours, 'eth_getTransactionByHash', [hash])) as Record<string, string | undefined>;
      const block = (await rpc(ours, 'eth_getBlockByNumber', [hex(number), false])) as Record<string, string>;
      const call = {
        from: tx.from,
        to: tx.to ?? undefined,
        gas: tx.gas,
        value: tx.value,
        input: tx.input,
        ...(tx.maxFeePerGas ? { maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas } : { gasPrice: tx.gasPrice }),
      };
      const context = {
        number: block.number,
        time: block.timestamp,
        baseFeePerGas: block.baseFeePerGas,
        feeRecipient: block.miner,
        prevRandao: block.mixHash,
        gasLimit: block.gasLimit,
      };
      const traced = await rpc(ours, 'trace_call', [call, ['trace', 'stateDiff'], hex(number - 1), {}, context]);
      const replayed = await rpc(ours, 'trace_replayTransaction', [hash, ['trace', 'stateDiff']]);
      expect(traced, hash).toEqual(replayed);
      calls++;
    }
    expect(calls).toBeGreaterThan(10);
  });

  it('trace_callMany: each call on the state the previous left, fees settled (hand-computed)', async () => {
    const ours = peers().ours;
    const DEV = alice().address;
    const latest = (await rpc(ours, 'eth_getBlockByNumber', ['latest', false])) as { number: string; baseFeePerGas: string; miner: string };
    const balance = BigInt((await rpc(ours, 'eth_getBalance', [DEV, 'latest'])) as string);
    const nonce = BigInt((await rpc(ours, 'eth_getTransactionCount', [DEV, 'latest'])) as string);
    const miner = BigInt((await rpc(ours, 'eth_getBalance', [latest.miner, 'latest'])) as string);
    const fresh = '0x00000000000000000000000000000000c0ffee01';
    const price = BigInt(latest.baseFeePerGas) + 7n;
    const transfer = (extra: Record<string, string>) => ({ from: DEV, to: fresh, value: '0x1', gas: hex(21_000 + 1_000), ...extra });
    const results = (await rpc(ours, 'trace_callMany', [
      [
        [transfer({}), ['trace', 'stateDiff']],
        [transfer({ gasPrice: hex(price) }), ['stateDiff']],
        [transfer({}), []],
      ],
      'latest',
    ])) as Replayed[];
    expect(results).toHaveLength(3);
    expect(results[0]).toEqual({
      output: '0x',
      stateDiff: {
        [fresh]: { balance: { '*': { from: '0x0', to: '0x1' } }, code: '=', nonce: '=', storage: {} },
        [DEV]: {
          balance: { '*': { from: hex(balance), to: hex(balance - 1n) } },
          code: '=',
          nonce: { '*': { from: hex(nonce), to: hex(nonce + 1n) } },
          storage: {},
        },
      },
      trace: [
        {
          type: 'call',
          action: { from: DEV, callType: 'call', gas: hex(1_000), input: '0x', to: fresh, value: '0x1' },
          result: { gasUsed: '0x0', output: '0x' },
          subtraces: 0,
          traceAddress: [],
        },
      ],
      vmTrace: null,
    });
    // the second pays 21,000 gas at `price`; the coinbase gets the tip above the base fee
    const paid = balance - 1n - 1n - 21_000n * price;
    expect(results[1]!.stateDiff).toEqual({
      [fresh]: { balance: { '*': { from: '0x1', to: '0x2' } }, code: '=', nonce: '=', storage: {} },
      [latest.miner]: { balance: { '*': { from: hex(miner), to: hex(miner + 21_000n * 7n) } }, code: '=', nonce: '=', storage: {} },
      [DEV]: {
        balance: { '*': { from: hex(balance - 1n), to: hex(paid) } },
        code: '=',
        nonce: { '*': { from: hex(nonce + 1n), to: hex(nonce + 2n) } },
        storage: {},
      },
    });
    expect(results[1]!.trace).toEqual([]);
    expect(results[2]).toEqual({ output: '0x', stateDiff: null, trace: [], vmTrace: null });
    // nothing of it stayed: the archive is unchanged
    expect(await rpc(ours, 'eth_getBalance', [fresh, 'latest'])).toBe('0x0');
  });

  it('trace_rawTransaction equals trace_call of the call the signed transaction stands for', async () => {
    const ours = peers().ours;
    const { address: DEV, key } = alice();
    const latest = (await rpc(ours, 'eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas: string };
    const nonce = BigInt((await rpc(ours, 'eth_getTransactionCount', [DEV, 'latest'])) as string);
    const fields = {
      nonce,
      to: '0x00000000000000000000000000000000c0ffee02' as const,
      value: 5n,
      gasLimit: 30_000n,
      maxFeePerGas: BigInt(latest.baseFeePerGas) * 2n,
      maxPriorityFeePerGas: 3n,
    };
    const common = createCustomCommon({ chainId: peers().built.chainId }, Mainnet, { hardfork: 'prague' });
    const signed = createFeeMarket1559Tx({ ...fields, chainId: BigInt(peers().built.chainId) }, { common }).sign(hexToBytes(key as `0x${string}`));
    const raw = `0x${Buffer.from(signed.serialize()).toString('hex')}`;
    const traced = await rpc(ours, 'trace_rawTransaction', [raw, ['trace', 'stateDiff']]);
    const call = {
      from: DEV,
      to: fields.to,
      value: hex(fields.value),
      gas: hex(fields.gasLimit),
      maxFeePerGas: hex(fields.maxFeePerGas),
      maxPriorityFeePerGas: '0x3',
    };
    expect(traced).toEqual(await rpc(ours, 'trace_call', [call, ['trace', 'stateDiff'], 'latest']));
    expect((traced as Replayed).stateDiff![DEV]!.nonce).toEqual({ '*': { from: hex(nonce), to: hex(nonce + 1n) } });
    const bad = await rawCall(ours, 'trace_rawTransaction', ['0x02c0', ['trace']]);
    expect(bad.error?.code).toBe(-32602);
    expect(bad.error?.message).toMatch(/^failed to decode signed transaction/);
  });

  it('trace_get: each trace of trace_transaction by its traceAddress; null when absent', async () => {
    const ours = peers().ours;
    let found = 0;
    for (const { txHashes } of blocksWithTxs()) {
      for (const hash of txHashes) {
        const all = (await rpc(ours, 'trace_transaction', [hash])) as Array<{ traceAddress: number[] }>;
        for (const t of all) {
          expect(await rpc(ours, 'trace_get', [hash, t.traceAddress.map((n) => hex(n))])).toEqual(t);
          found++;
        }
        expect(await rpc(ours, 'trace_get', [hash, [hex(all.length + 5)]])).toBeNull();
      }
    }
    expect(found).toBeGreaterThan(60);
    expect(await rpc(ours, 'trace_get', [`0x${'ab'.repeat(32)}`, ['0x0']])).toBeNull();
  });

  it('bad input: vmTrace refused (-32004), unknown types and malformed lists -32602, unknown transaction -32001', async () => {
    const ours = peers().ours;
    const DEV = alice().address;
    const hash = blocksWithTxs()[0]!.txHashes[0]!;
    const err = async (method: string, params: unknown[]) => (await rawCall(ours, method, params)).error;
    expect(await err('trace_replayTransaction', [hash, ['vmTrace']])).toEqual({
      code: -32004,
      message: 'trace type vmTrace is not supported; ask for "trace" and/or "stateDiff"',
    });
    expect((await err('trace_call', [{ to: DEV }, ['trace', 'vmTrace']]))?.code).toBe(-32004);
    expect(await err('trace_replayTransaction', [hash, ['foo']])).toEqual({
      code: -32602,
      message: 'invalid argument 1: unknown variant `foo`, expected one of `vmTrace`, `trace`, `stateDiff`',
    });
    expect(await err('trace_replayTransaction', [hash, 'trace'])).toEqual({
      code: -32602,
      message: 'invalid argument 1: invalid type: string, expected a sequence',
    });
    expect(await err('trace_callMany', [[[{ to: DEV }]]])).toEqual({ code: -32602, message: 'invalid argument 0: 0: expected a [call, traceTypes] pair' });
    expect(await err('trace_get', [hash, ['x']])).toEqual({
      code: -32602,
      message: 'invalid argument 1: invalid index "x": expected a hex quantity or a non-negative integer',
    });
    expect(await err('trace_replayTransaction', [`0x${'ab'.repeat(32)}`, ['trace']])).toEqual({ code: -32001, message: 'transaction not found' });
    // an invalid message is eth_call's error, in trace_call and in any call of trace_callMany
    const broke = { from: '0x00000000000000000000000000000000c0ffee03', to: DEV, value: '0x1' };
    const ethCallError = await err('eth_call', [broke, 'latest']);
    expect(ethCallError?.message).toMatch(/^err: insufficient funds for gas \* price \+ value/);
    expect(await err('trace_call', [broke, ['trace']])).toEqual(ethCallError);
    expect(
      await err('trace_callMany', [
        [
          [{ to: DEV }, ['trace']],
          [broke, ['trace']],
        ],
      ]),
    ).toEqual(ethCallError);
    expect(await rpc(ours, 'trace_replayBlockTransactions', ['0xffff', ['trace']])).toBeNull();
    expect(await rpc(ours, 'trace_replayBlockTransactions', ['0x0', ['trace']])).toEqual([]);
  });
});
