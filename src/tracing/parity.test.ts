import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CallFrame, FrameError, SelfdestructNode, TxCallTree } from './callTree.js';
import { blockTraceEntries, flattenTx, parityErrorText, renderBlock, renderReward, renderTx } from './parity.js';

const addr = (n: number) => Uint8Array.from({ length: 20 }, (_, i) => (i === 19 ? n : 0));
const hexAddr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const bytes = (...b: number[]) => Uint8Array.from(b);

const BLOCK_HASH = Uint8Array.from({ length: 32 }, () => 0xbb);
const TX_HASH = Uint8Array.from({ length: 32 }, () => 0xaa);
const WHERE = { blockNumber: 7n, blockHash: BLOCK_HASH };
const ENVELOPE = {
  blockHash: `0x${'bb'.repeat(32)}`,
  blockNumber: 7,
  transactionHash: `0x${'aa'.repeat(32)}`,
  transactionPosition: 3,
};

function frame(partial: Partial<CallFrame>): CallFrame {
  return {
    kind: 'call',
    from: addr(1),
    to: addr(2),
    value: 0n,
    gas: 1000n,
    input: new Uint8Array(),
    output: new Uint8Array(),
    gasUsed: 0n,
    error: undefined,
    precompile: false,
    children: [],
    ...partial,
  };
}
const tx = (root: CallFrame): TxCallTree => ({ txHash: TX_HASH, txIndex: 3, root });

describe('renderTx', () => {
  it('plain transfer: one call trace with empty output', () => {
    const traces = renderTx(tx(frame({ value: 5n, gas: 0n })), WHERE);
    expect(traces).toEqual([
      {
        action: { from: hexAddr(1), callType: 'call', gas: '0x0', input: '0x', to: hexAddr(2), value: '0x5' },
        ...ENVELOPE,
        result: { gasUsed: '0x0', output: '0x' },
        subtraces: 0,
        traceAddress: [],
        type: 'call',
      },
    ]);
  });

  it('key order as reth/erigon print it, error before result', () => {
    const [ok] = renderTx(tx(frame({})), WHERE);
    expect(Object.keys(ok)).toEqual([
      'action',
      'blockHash',
      'blockNumber',
      'result',
      'subtraces',
      'traceAddress',
      'transactionHash',
      'transactionPosition',
      'type',
    ]);
    const [failed] = renderTx(tx(frame({ error: 'outOfGas' })), WHERE);
    expect(Object.keys(failed)).toEqual([
      'action',
      'blockHash',
      'blockNumber',
      'error',
      'result',
      'subtraces',
      'traceAddress',
      'transactionHash',
      'transactionPosition',
      'type',
    ]);
  });

  it('nested tree: depth-first pre-order, traceAddress paths, subtraces; zero-value precompile calls omitted', () => {
    const selfdestruct: SelfdestructNode = { kind: 'selfdestruct', address: addr(4), beneficiary: addr(9), balance: 77n };
    const root = frame({
      to: addr(2),
      children: [
        frame({ from: addr(2), to: addr(3), children: [frame({ kind: 'staticcall', from: addr(3), to: addr(5) })] }),
        frame({ kind: 'staticcall', from: addr(2), to: addr(1 /* ecrecover */), precompile: true }),
        frame({ kind: 'call', from: addr(2), to: addr(4 /* identity */), precompile: true, value: 0n }),
        frame({ kind: 'delegatecall', from: addr(2), to: addr(4), children: [selfdestruct] }),
        frame({ kind: 'call', from: addr(2), to: addr(2), precompile: true, value: 1n }),
        frame({ kind: 'create2', from: addr(2), to: addr(6), input: bytes(0x60, 0x00), output: bytes(0x00) }),
      ],
    });
    const flat = flattenTx(root);
    expect(flat.map((f) => [f.node.kind, f.traceAddress, f.subtraces])).toEqual([
      ['call', [], 4],
      ['call', [0], 1],
      ['staticcall', [0, 0], 0],
      ['delegatecall', [1], 1],
      ['selfdestruct', [1, 0], 0],
      ['call', [2], 0], // the precompile call that carries value is kept
      ['create2', [3], 0],
    ]);
    const traces = renderTx(tx(root), WHERE);
    expect(traces[4]).toEqual({
      action: { address: hexAddr(4), balance: '0x4d', refundAddress: hexAddr(9) },
      ...ENVELOPE,
      result: null,
      subtraces: 0,
      traceAddress: [1, 0],
      type: 'suicide',
    });
    expect(traces[6]).toEqual({
      action: { from: hexAddr(2), gas: '0x3e8', init: '0x6000', value: '0x0', creationMethod: 'create2' },
      ...ENVELOPE,
      result: { address: hexAddr(6), code: '0x00', gasUsed: '0x0' },
      subtraces: 0,
      traceAddress: [3],
      type: 'create',
    });
    expect(traces[3].action).toEqual({ from: hexAddr(2), callType: 'delegatecall', gas: '0x3e8', input: '0x', to: hexAddr(4), value: '0x0' });
  });

  it('the root frame is kept even when it is a zero-value precompile call', () => {
    expect(renderTx(tx(frame({ to: addr(1), precompile: true })), WHERE)).toHaveLength(1);
  });

  it('Reverted keeps result (gasUsed + revert data); other failures have result null', () => {
    const root = frame({
      gasUsed: 50n,
      children: [
        frame({ error: 'reverted', gasUsed: 30n, output: bytes(0x08, 0xc3) }),
        frame({ error: 'badJumpDestination', gasUsed: 1000n }),
        frame({ kind: 'create', to: addr(8), error: 'reverted', gasUsed: 12n, output: bytes(0xde, 0xad) }),
        frame({ kind: 'create', to: addr(8), error: 'outOfGas', gasUsed: 1000n }),
      ],
    });
    const traces = renderTx(tx(root), WHERE);
    expect(traces.map((t) => [t.error, t.result])).toEqual([
      [undefined, { gasUsed: '0x32', output: '0x' }],
      ['Reverted', { gasUsed: '0x1e', output: '0x08c3' }],
      ['Bad jump destination', null],
      ['Reverted', { address: hexAddr(8), code: '0xdead', gasUsed: '0xc' }],
      ['Out of gas', null],
    ]);
    expect('error' in traces[0]).toBe(false);
  });

  describe('Parity error texts, against the reference implementations (fixtures/trace-error-texts)', () => {
    const refs = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../fixtures/trace-error-texts/texts.json'), 'utf8')) as {
      openethereum: { texts: Record<string, string> };
      gethParityTracer: { exact: Record<string, string>; prefix: Record<string, string> };
    };
    const oe = refs.openethereum.texts;
    const geth = refs.gethParityTracer.exact;
    /**
     * Where each of our errors gets its text: the OpenEthereum variant it is, or, for what
     * OpenEthereum's EVM reported as another variant, the geth EVM error text that geth's parity
     * tracer converts.
     */
    const source: Record<FrameError, string> = {
      reverted: oe.Reverted,
      outOfGas: oe.OutOfGas,
      badInstruction: oe.BadInstruction,
      badJumpDestination: oe.BadJumpDestination,
      stackUnderflow: oe.StackUnderflow,
      stackOverflow: oe.OutOfStack,
      staticStateChange: oe.MutableCallInStaticContext,
      outOfBounds: oe.OutOfBounds,
      precompileFailed: oe.BuiltIn,
      invalidCode: oe.InvalidCode,
      internal: oe.Internal,
      // geth: ErrMaxCodeSizeExceeded ("max code size exceeded") → "Out of gas".
      codeSizeLimit: geth['max code size exceeded'],
      // No reference prints these; each is our decision (docs/methods.md#traces): a collision and
      // an over-size initcode fail "as if out of gas" (EIP-684, EIP-3860).
      createCollision: oe.OutOfGas,
      initcodeSizeLimit: oe.OutOfGas,
      insufficientBalance: 'Insufficient balance for transfer',
    };

    it.each(Object.keys(source) as FrameError[])('%s', (error) => {
      expect(parityErrorText(error)).toBe(source[error]);
    });

    it('the reference tables say what the sources say', () => {
      // Spot checks that the recorded data is the reference's, not ours: OpenEthereum's unusual
      // capitalisation and geth's prefix rules.
      expect(oe.MutableCallInStaticContext).toBe('Mutable Call In Static Context');
      expect(refs.gethParityTracer.prefix['invalid opcode:']).toBe(oe.BadInstruction);
      expect(refs.gethParityTracer.prefix['stack underflow']).toBe(oe.StackUnderflow);
      expect(geth['stack limit reached 1024 (1023)']).toBe(oe.OutOfStack);
      expect(Object.keys(oe)).toHaveLength(15);
    });
  });

  it('a failed child does not fail its parent', () => {
    const traces = renderTx(tx(frame({ children: [frame({ error: 'stackUnderflow' })] })), WHERE);
    expect(traces[0].error).toBeUndefined();
    expect(traces[1].error).toBe('Stack underflow');
  });
});

describe('renderReward / renderBlock', () => {
  it('reward trace: null transaction fields, empty traceAddress', () => {
    expect(renderReward({ kind: 'uncle', author: addr(7), value: 0x18493fba64ef0000n }, WHERE)).toEqual({
      action: { author: hexAddr(7), rewardType: 'uncle', value: '0x18493fba64ef0000' },
      blockHash: ENVELOPE.blockHash,
      blockNumber: 7,
      result: null,
      subtraces: 0,
      traceAddress: [],
      transactionHash: null,
      transactionPosition: null,
      type: 'reward',
    });
  });

  it('transactions in order, then rewards', () => {
    const a: TxCallTree = { txHash: TX_HASH, txIndex: 0, root: frame({ children: [frame({})] }) };
    const b: TxCallTree = { txHash: TX_HASH, txIndex: 1, root: frame({ kind: 'create', to: addr(5) }) };
    const rewards = [
      { kind: 'block' as const, author: addr(1), value: 2n },
      { kind: 'uncle' as const, author: addr(1), value: 1n },
    ];
    const traces = renderBlock([a, b], rewards, WHERE);
    expect(traces.map((t) => [t.type, t.transactionPosition, t.traceAddress])).toEqual([
      ['call', 0, []],
      ['call', 0, [0]],
      ['create', 1, []],
      ['reward', null, []],
      ['reward', null, []],
    ]);
  });
});

describe('blockTraceEntries', () => {
  it('sides: call from/to, create from/new address (none when failed), suicide contract/beneficiary, reward author on the to side', () => {
    const root = frame({
      from: addr(1),
      to: addr(2),
      children: [
        frame({ kind: 'create', from: addr(2), to: addr(3) }),
        frame({ kind: 'create', from: addr(2), to: addr(4), error: 'outOfGas' }),
        frame({ kind: 'create', from: addr(2), to: addr(5), error: 'reverted' }),
        frame({ kind: 'delegatecall', from: addr(2), to: addr(6), children: [{ kind: 'selfdestruct', address: addr(2), beneficiary: addr(7), balance: 0n }] }),
      ],
    });
    const entries = blockTraceEntries([tx(root)], [{ kind: 'block', author: addr(8), value: 1n }], WHERE);
    const side = (a: Uint8Array | undefined) => (a ? a[19] : undefined);
    expect(entries.map((e) => [side(e.from), side(e.to)])).toEqual([
      [1, 2],
      [2, 3],
      [2, undefined],
      [2, 5],
      [2, 6],
      [2, 7],
      [undefined, 8],
    ]);
    expect(entries.map((e) => e.render())).toEqual(renderBlock([tx(root)], [{ kind: 'block', author: addr(8), value: 1n }], WHERE));
  });
});
