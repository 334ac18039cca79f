import { KECCAK256_NULL } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../codec/keccak.js';
import type { CallFrame } from './callTree.js';
import { renderStateDiff, renderTraceResults } from './parityResults.js';
import { type AccountChange, createdAddresses, stateDiff } from './stateDiff.js';

const addr = (n: number) => Uint8Array.from({ length: 20 }, (_, i) => (i === 19 ? n : 0));
const hexAddr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const word = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? n : 0));
const hexWord = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const CODE = Uint8Array.from([0x60, 0x00, 0xf3]);
const CODE_HASH = keccak256(CODE);

function change(n: number, partial: Partial<AccountChange>): AccountChange {
  return { address: addr(n), pre: undefined, post: undefined, preCode: new Uint8Array(), postCode: new Uint8Array(), slots: [], ...partial };
}
const eoa = (balance: bigint, nonce = 0n) => ({ balance, nonce, codeHash: KECCAK256_NULL });

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

describe('stateDiff (reth populate_state_diff rules)', () => {
  it('drops accounts only read or left as found; lists changed ones by address with = and *', () => {
    const diff = stateDiff(
      [
        change(9, { pre: eoa(5n), post: eoa(5n) }), // read only
        change(8, { pre: undefined, post: undefined }), // absent, read
        change(3, { pre: eoa(10n, 1n), post: eoa(4n, 2n) }),
        change(2, { pre: undefined, post: eoa(6n) }), // did not exist, received value: * from 0 (reth)
        change(4, {
          pre: { ...eoa(0n), codeHash: CODE_HASH },
          post: { ...eoa(0n), codeHash: CODE_HASH },
          slots: [
            [word(1), word(0), word(7)],
            [word(0), word(3), word(3)],
          ],
        }),
      ],
      new Set(),
    );
    expect(renderStateDiff(diff)).toEqual({
      [hexAddr(2)]: { balance: { '*': { from: '0x0', to: '0x6' } }, code: '=', nonce: '=', storage: {} },
      [hexAddr(3)]: { balance: { '*': { from: '0xa', to: '0x4' } }, code: '=', nonce: { '*': { from: '0x1', to: '0x2' } }, storage: {} },
      [hexAddr(4)]: { balance: '=', code: '=', nonce: '=', storage: { [hexWord(1)]: { '*': { from: hexWord(0), to: hexWord(7) } } } },
    });
    expect(Object.keys(renderStateDiff(diff))).toEqual([hexAddr(2), hexAddr(3), hexAddr(4)]);
  });

  it('a contract created on an empty address is all +; created and destroyed is left out; pre-funded is *', () => {
    const created = new Set([
      '0000000000000000000000000000000000000005',
      '0000000000000000000000000000000000000006',
      '0000000000000000000000000000000000000007',
    ]);
    const diff = stateDiff(
      [
        change(5, {
          post: { balance: 3n, nonce: 1n, codeHash: CODE_HASH },
          postCode: CODE,
          slots: [
            [word(2), word(0), word(9)],
            [word(1), word(0), word(0)],
          ],
        }),
        change(6, { post: undefined }),
        change(7, { pre: eoa(4n), post: { balance: 4n, nonce: 1n, codeHash: CODE_HASH }, postCode: CODE }),
      ],
      created,
    );
    expect(renderStateDiff(diff)).toEqual({
      [hexAddr(5)]: { balance: { '+': '0x3' }, code: { '+': '0x6000f3' }, nonce: { '+': '0x1' }, storage: { [hexWord(2)]: { '+': hexWord(9) } } },
      [hexAddr(7)]: { balance: '=', code: { '*': { from: '0x', to: '0x6000f3' } }, nonce: { '*': { from: '0x0', to: '0x1' } }, storage: {} },
    });
  });

  it('an existing account deleted is all - (OpenEthereum), with the nonzero slots touched', () => {
    const diff = stateDiff(
      [
        change(4, {
          pre: { balance: 2n, nonce: 1n, codeHash: CODE_HASH },
          preCode: CODE,
          slots: [
            [word(1), word(5), word(0)],
            [word(2), word(0), word(0)],
          ],
        }),
      ],
      new Set(),
    );
    expect(renderStateDiff(diff)).toEqual({
      [hexAddr(4)]: { balance: { '-': '0x2' }, code: { '-': '0x6000f3' }, nonce: { '-': '0x1' }, storage: { [hexWord(1)]: { '-': hexWord(5) } } },
    });
  });

  it('created addresses: successful creations under successful frames only', () => {
    const root = frame({
      children: [
        frame({ kind: 'create', to: addr(10) }),
        frame({ kind: 'create2', to: addr(11), error: 'reverted' }),
        frame({ error: 'reverted', children: [frame({ kind: 'create', to: addr(12) })] }),
        frame({ children: [frame({ kind: 'create2', to: addr(13) })] }),
      ],
    });
    expect([...createdAddresses(root)].sort()).toEqual(['000000000000000000000000000000000000000a', '000000000000000000000000000000000000000d']);
    expect(createdAddresses(frame({ kind: 'create', to: addr(14), error: 'outOfGas' })).size).toBe(0);
  });
});

describe('renderTraceResults', () => {
  it('trace [] and stateDiff null when not asked; output 0x after a failure other than a revert', () => {
    const reverted = frame({ error: 'reverted', output: Uint8Array.from([0xab]), gasUsed: 5n });
    expect(renderTraceResults(reverted, [], { trace: false, stateDiff: false })).toEqual({ output: '0xab', stateDiff: null, trace: [], vmTrace: null });
    const oog = frame({ error: 'outOfGas', output: Uint8Array.from([0xab]) });
    expect(renderTraceResults(oog, [], { trace: true, stateDiff: true })).toEqual({
      output: '0x',
      stateDiff: {},
      trace: [
        {
          type: 'call',
          action: { from: hexAddr(1), callType: 'call', gas: '0x3e8', input: '0x', to: hexAddr(2), value: '0x0' },
          error: 'Out of gas',
          result: null,
          subtraces: 0,
          traceAddress: [],
        },
      ],
      vmTrace: null,
    });
  });
});
