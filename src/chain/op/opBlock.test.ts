import { createBlockHeader } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { Capability } from '@ethereumjs/tx';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../../codec/keccak.js';
import { encodeDepositTx } from './depositTx.js';
import { DepositTransaction, opBlock, opBlockFromBytes } from './opBlock.js';
import { opCommon, rollupFromConfig } from './rollup.js';

describe('OP blocks as ethereumjs blocks (opBlock.ts)', () => {
  const common = opCommon(rollupFromConfig({ l2_chain_id: 10, regolith_time: 0, canyon_time: 0, delta_time: 0, ecotone_time: 0 }), 'ecotone');
  const raw = encodeDepositTx({
    sourceHash: new Uint8Array(32).fill(7),
    from: new Uint8Array(20).fill(0xab),
    to: undefined,
    mint: 10n ** 18n,
    value: 5n,
    gasLimit: 100_000n,
    isSystemTx: false,
    data: Uint8Array.of(0x60, 0x00),
  });

  it('a deposit in a block: its bytes, hash, sender and op-geth’s JSON; typed, and nothing else', () => {
    const tx = new DepositTransaction(raw);
    expect(tx.serialize()).toBe(raw);
    expect(bytesToHex(tx.hash())).toBe(bytesToHex(keccak256(raw)));
    expect(tx.supports(Capability.EIP2718TypedTransaction)).toBe(true);
    expect(tx.supports(Capability.EIP1559FeeMarket)).toBe(false);
    expect(tx.getSenderAddress().toString()).toBe(`0x${'ab'.repeat(20)}`);
    expect([tx.to, tx.gasLimit, tx.value, bytesToHex(tx.data)]).toEqual([undefined, 100_000n, 5n, '0x6000']);
    expect(tx.toJSON()).toEqual({
      type: '0x7e',
      sourceHash: `0x${'07'.repeat(32)}`,
      from: `0x${'ab'.repeat(20)}`,
      to: null,
      mint: '0xde0b6b3a7640000',
      value: '0x5',
      gas: '0x186a0',
      isSystemTx: false,
      input: '0x6000',
    });
  });

  it('a block of a deposit encodes and reads back; an encoding with uncles is refused', () => {
    const header = createBlockHeader({ number: 1n, timestamp: 2n, baseFeePerGas: 1n, parentBeaconBlockRoot: new Uint8Array(32) }, { common });
    const block = opBlock(header, [raw]);
    const read = opBlockFromBytes(block.serialize(), common, false);
    expect(bytesToHex(read.hash())).toBe(bytesToHex(block.hash()));
    expect(read.transactions[0]).toBeInstanceOf(DepositTransaction);
    const [h, txs, , withdrawals] = RLP.decode(block.serialize()) as Uint8Array[][];
    const withUncle = RLP.encode([h, txs, [h], withdrawals] as never);
    expect(() => opBlockFromBytes(withUncle, common, false)).toThrow(/an OP block has no uncles/);
    expect(() => opBlockFromBytes(hexToBytes('0xc0'), common)).toThrow(/a list of its header, transactions and uncles/);
  });
});
